"""Mutation fuzzing: no input makes the importers raise anything but LorebookImportError.

Seeds are the small corpus files (plus a PNG card, a CHARX and an Agnai book built from
them); each input is one byte-level or JSON-level mutation of a seed. Defaults: 3000
inputs, seed 4; ``WORLDINFO_FUZZ_EXAMPLES`` and ``WORLDINFO_FUZZ_SEED`` change them.
"""

from __future__ import annotations

import base64
import copy
import io
import json
import os
import random
import zipfile
from typing import Any

from shared import corpus_file, corpus_names

from worldinfo import importers
from worldinfo._js import stringify
from worldinfo.conformance.st_import import find_corpus_file
from worldinfo.importers.export import card_json, character_book, png_card_bytes, world_json

EXAMPLES = int(os.environ.get("WORLDINFO_FUZZ_EXAMPLES", "3000"))
SEED = int(os.environ.get("WORLDINFO_FUZZ_SEED", "4"))
MAX_SEED_BYTES = 40_000

TOKENS = [
    b"{",
    b"}",
    b"[",
    b"]",
    b'"',
    b",",
    b":",
    b"null",
    b"true",
    b"-1",
    b"1e999",
    b"\\u0000",
    b"\\ud800",
    b"\x00",
    b"\xff",
    b"\n",
    b"@@activate\n",
    b"/x/i",
]
VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    10**30,
    "",
    "x",
    "/a(b/g",
    "@@activate",
    [],
    [None],
    {},
    {"a": []},
    "before_char",
    ["", " "],
    "0",
]


def _seeds() -> list[tuple[str, bytes]]:
    seeds: list[tuple[str, bytes]] = []
    for rel in corpus_names():  # the bundled files, plus the shared corpus when present
        p = find_corpus_file(rel)
        if p is not None and p.stat().st_size <= MAX_SEED_BYTES:
            seeds.append((p.name, p.read_bytes()))
    card = importers.load(corpus_file("card_png/st-default-seraphina.png"))
    card_obj = card_json(card.book, card=card.card)
    seeds.append(("card.png", png_card_bytes(card_obj)))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("card.json", json.dumps(card_obj))
    seeds.append(("card.charx", buf.getvalue()))
    agnai = {
        "kind": "memory",
        "name": "b",
        "entries": [
            {
                "name": "n",
                "entry": "e",
                "keywords": ["k"],
                "priority": 1,
                "weight": 2,
                "enabled": True,
            }
        ],
    }
    seeds.append(("agnai.json", json.dumps(agnai).encode()))
    v3 = {"spec": "lorebook_v3", "data": card_obj["data"]["character_book"]}
    seeds.append(("book.json", json.dumps(v3).encode()))
    return seeds


def _byte_mutation(rng: random.Random, raw: bytes) -> bytes:
    data = bytearray(raw)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        pos = rng.randrange(len(data) + 1)
        if op == 0 and data:
            data[min(pos, len(data) - 1)] = rng.randrange(256)
        elif op == 1:
            del data[pos : pos + rng.randint(1, 64)]
        elif op == 2:
            data[pos:pos] = rng.choice(TOKENS)
        elif op == 3:
            data = data[: rng.randrange(len(data) + 1)]
        else:
            end = min(len(data), pos + rng.randint(1, 256))
            data[pos:pos] = data[pos:end] * rng.randint(1, 3)
    return bytes(data)


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _nodes(v, (*path, i))
    return out


def _json_mutation(rng: random.Random, value: Any) -> Any:
    for _ in range(rng.randint(1, 3)):
        paths = _nodes(value)
        path = rng.choice(paths)
        if not path:
            value = copy.deepcopy(rng.choice(VALUES)) if rng.random() < 0.1 else value
            continue
        parent = value
        for p in path[:-1]:
            parent = parent[p]
        last = path[-1]
        op = rng.randrange(4)
        if op == 0 and isinstance(parent, dict):
            del parent[last]
        elif op == 1:
            parent[last] = [parent[last]]
        else:
            parent[last] = copy.deepcopy(rng.choice(VALUES))
    return value


def _mutate(rng: random.Random, name: str, raw: bytes) -> bytes:
    if rng.random() < 0.5:
        return _byte_mutation(rng, raw)
    try:
        if name.endswith(".png"):
            card = importers.load(raw, name=name).card
            mutated = _json_mutation(rng, json.loads(json.dumps(card)))
            if rng.random() < 0.5:
                text = base64.b64encode(stringify(mutated).encode()).decode()
                from worldinfo.importers.png import replace_text_chunks

                return replace_text_chunks(raw, [("chara", text)], limits=importers.DEFAULT_LIMITS)
            return png_card_bytes(mutated if isinstance(mutated, dict) else {"spec": mutated})
        if name.endswith(".jsonl"):
            lines = raw.split(b"\n")
            i = rng.randrange(len(lines))
            lines[i] = stringify(_json_mutation(rng, json.loads(lines[i]))).encode()
            return b"\n".join(lines)
        return stringify(_json_mutation(rng, json.loads(raw))).encode("utf-8", "surrogatepass")
    except (ValueError, importers.LorebookImportError):
        return _byte_mutation(rng, raw)


def _check(name: str, raw: bytes) -> bool:
    try:
        imp = importers.load(raw, name=name)
    except importers.LorebookImportError as err:
        assert err.problems, "an import error without problems"
        assert not any("internal error" in p.message for p in err.problems), str(err)
        return False
    for book in imp.books:
        stringify(world_json(book))
        stringify(character_book(book))
        stringify(character_book(book, st_exact=True))
    importers.load(raw, name=name, trust=False)
    return True


def test_mutations_raise_only_the_typed_error() -> None:
    rng = random.Random(SEED)
    seeds = _seeds()
    imported = 0
    for i in range(EXAMPLES):
        name, raw = rng.choice(seeds)
        data = _mutate(rng, name, raw)
        try:
            imported += _check(name, data)
        except Exception as exc:  # report the reproducer, then fail
            raise AssertionError(f"seed {SEED}, input {i} ({name}): {exc!r}") from exc
    assert 0 < imported < EXAMPLES, "mutations should both import and fail sometimes"
    print(f"fuzz: {EXAMPLES} inputs, {imported} imported")
