"""Every corpus file imports or is rejected as MANIFEST.md says, round-trips, and matches
its snapshot (the normalised import result as sorted JSON).

Snapshots never hold the text of community files (adult-themed ones and their siblings):
there every string is replaced by its length and a hash; elsewhere strings longer than
120 characters are abbreviated the same way (with their first 40 characters).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from shared import corpus_file, corpus_names

from worldinfo import importers
from worldinfo._js import canonical, stringify
from worldinfo.importers.export import card_json, png_card_bytes, world_json

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots" / "import"

# MANIFEST.md: these two must be rejected; every other file imports.
REJECTED = {
    "novelai/nai-ripple-truncated.lorebook": "truncated",
    "novelai/nai-mislabeled-not-a-lorebook.lorebook": "not a NovelAI lorebook",
}
# Community files: adult-themed (MANIFEST) and files of the same origin. Structure only.
STRUCTURE_ONLY = ("cf-", "lide-", "eldoria-zh-")
EXPECTED_FORMAT = {
    "card_json": ("card-v1", "card-v2", "card-v3"),
    "card_png": ("card-v1", "card-v2", "card-v3"),
    "st_world": ("st-world",),
    "risu": ("risu-lorebook",),
    "novelai": ("novelai-lorebook", "novelai-story"),
    "kobold": ("kobold-story",),
    "st_chat": ("st-chat", "tavernai-chat"),
}


def corpus_files() -> list[str]:
    return corpus_names()


def _hash(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _redact(value: Any, *, hide: bool) -> Any:
    if isinstance(value, str):
        if hide and value:
            return f"<str len={len(value)} sha={_hash(value)}>"
        if len(value) > 120:
            return f"{value[:40]}<... len={len(value)} sha={_hash(value)}>"
        return value
    if isinstance(value, dict):
        return {k: _redact(v, hide=hide) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v, hide=hide) for v in value]
    return value


def model(imp: importers.Imported) -> dict[str, Any]:
    """The engine's view of an import: books, card fields, chat (origins left out)."""
    books = []
    for b in imp.books:
        w = canonical(world_json(b))
        if "originalData" in w:
            w["originalData"] = {"sha": _hash(stringify(w["originalData"]))}
        books.append({"name": b.name, "world": w})
    char = None
    if imp.character is not None:
        c = imp.character
        char = {f: getattr(c, f) for f in c.__dataclass_fields__}
        char["tags"] = list(c.tags)
        char["extra_books"] = list(c.extra_books)
    return {
        "books": books,
        "character": char,
        "chat": [[m.name, m.mes, m.is_user, m.is_system] for m in imp.chat],
        "chat_metadata": canonical(dict(imp.chat_metadata)),
    }


@pytest.mark.parametrize("rel", corpus_files())
def test_manifest_verdict(rel: str) -> None:
    """Imports, or is rejected with a clear message, exactly as MANIFEST.md says."""
    if rel in REJECTED:
        with pytest.raises(importers.LorebookImportError) as info:
            importers.load(corpus_file(rel))
        err = info.value
        assert err.file.endswith(Path(rel).name)
        assert err.format == "novelai-lorebook"
        assert REJECTED[rel] in str(err)
        assert list(importers.iter_problems(corpus_file(rel))) == list(err.problems)
        return
    imp = importers.load(corpus_file(rel))
    assert imp.format in EXPECTED_FORMAT[rel.split("/")[0]]
    assert list(importers.iter_problems(corpus_file(rel))) == []
    for book in imp.books:
        for e in book.entries or ():
            assert e.origin is not None and e.origin.format == imp.format
            assert e.origin.file == Path(rel).name


@pytest.mark.parametrize("rel", [r for r in corpus_files() if r not in REJECTED])
def test_snapshot(rel: str, snapshot: Any) -> None:
    """The normalised import result is stable (review changes, then --snapshot-update)."""
    imp = importers.load(corpus_file(rel))
    hide = Path(rel).name.startswith(STRUCTURE_ONLY)
    view = {
        "format": imp.format,
        "carrier": imp.carrier,
        "extracted_from": imp.extracted_from,
        **_redact(model(imp), hide=hide),
    }
    snapshot.snapshot_dir = SNAPSHOTS
    text = json.dumps(view, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    snapshot.assert_match(text, rel.replace("/", "__") + ".json")


@pytest.mark.parametrize("rel", [r for r in corpus_files() if r not in REJECTED])
def test_round_trip(rel: str) -> None:
    """Import -> export (its natural format) -> import is the identity on the model."""
    path = corpus_file(rel)
    hide = path.name.startswith(STRUCTURE_ONLY)  # failure diffs must not show their text
    imp = importers.load(path)
    if imp.format.startswith("card-"):
        card = card_json(imp.book, card=imp.card, v3=imp.format == "card-v3")
        if imp.carrier == "png":
            raw = png_card_bytes(card, base=path.read_bytes())
            again = importers.load(raw, name=path.name)
        else:
            again = importers.load(stringify(card).encode("utf-8"), name=path.name)
        want = model(imp)
        assert want["character"] is not None
        if imp.carrier != "png":
            want["character"]["avatar"] = again.character.avatar if again.character else ""
        assert _redact(model(again), hide=hide) == _redact(want, hide=hide)
        assert model(again) == want
        return
    if not imp.books:  # chats carry no book
        assert imp.chat
        return
    for book in imp.books:
        raw = stringify(world_json(book)).encode("utf-8")
        again = importers.load(raw, name=book.name + ".json")
        assert again.format == "st-world"
        assert again.books[0].name == book.name
        got, want_world = canonical(world_json(again.books[0])), canonical(world_json(book))
        assert _redact(got, hide=hide) == _redact(want_world, hide=hide)
        assert got == want_world
        same = [e.data for e in again.books[0].entries or ()] == [
            dict(e.data) for e in book.entries or ()
        ]
        assert same, "entry objects differ (key order or values)"
