"""Export (world JSON, character_book, PNG cards), trust, chats, dispatch details, CLI."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from shared import corpus_file

from worldinfo import importers
from worldinfo._js import JSONValue, canonical, stringify
from worldinfo.cli import main
from worldinfo.importers.export import (
    card_json,
    character_book,
    png_card_bytes,
    world_json,
    write_png_card,
)
from worldinfo.importers.limits import DEFAULT_LIMITS
from worldinfo.importers.png import iter_chunks, replace_text_chunks


def _json(obj: Any, name: str = "x.json", **kw: Any) -> importers.Imported:
    return importers.load(stringify(obj).encode("utf-8"), name=name, **kw)


def _text_chunks(raw: bytes) -> list[tuple[str, Any]]:
    out = []
    for c in iter_chunks(raw, limits=DEFAULT_LIMITS):
        if c.type == b"tEXt":
            kw, _, text = c.data.partition(b"\x00")
            if kw in (b"chara", b"ccv3"):
                out.append((kw.decode(), json.loads(base64.b64decode(text))))
    return out


def test_png_writing_keeps_other_chunks_and_replaces_both_text_chunks(tmp_path: Path) -> None:
    src = corpus_file("card_png/st-content-sakana.png")  # eXIf chunk, 14-entry book
    raw = src.read_bytes()
    imp = importers.load(src)
    card = card_json(imp.book, card=imp.card, v3=False)
    out = tmp_path / "card.png"
    write_png_card(out, card, base=raw)
    assert [p.name for p in tmp_path.iterdir()] == ["card.png"]  # no temp file left
    new = out.read_bytes()

    def others(b: bytes) -> list[bytes]:
        return [
            b[c.start : c.end]
            for c in iter_chunks(b, limits=DEFAULT_LIMITS)
            if c.data.partition(b"\x00")[0] not in (b"chara", b"ccv3") or c.type != b"tEXt"
        ]

    assert others(new) == others(raw)
    chunks = _text_chunks(new)
    assert [k for k, _ in chunks] == ["chara", "ccv3"]
    assert chunks[0][1] == json.loads(stringify(card))
    assert chunks[1][1]["spec"] == "chara_card_v3" and chunks[1][1]["spec_version"] == "3.0"
    again = importers.load(out)
    assert again.extracted_from == "ccv3"
    assert canonical(world_json(again.books[0])) == canonical(world_json(imp.books[0]))


def test_st_reverse_mapping_fields() -> None:
    book = importers.load(corpus_file("st_world/st-default-eldoria.json")).books[0]
    cb = character_book(book, st_exact=True)
    assert cb["name"] == "st-default-eldoria" and cb["extensions"] == {}
    first, data = cb["entries"][0], dict((book.entries or ())[0].data)
    assert first["id"] == data["uid"] and first["keys"] == data["key"]
    assert first["insertion_order"] == data["order"] and first["use_regex"] is True
    assert first["enabled"] is (not data["disable"])
    assert first["position"] == ("before_char" if data["position"] == 0 else "after_char")
    ext = first["extensions"]
    assert ext["position"] == data["position"] and ext["display_index"] == data["displayIndex"]
    assert ext["use_group_scoring"] is False  # SillyTavern's export default for null
    lossless = character_book(book)["entries"][0]["extensions"]
    assert lossless["use_group_scoring"] is None


@pytest.mark.parametrize(
    "rel",
    [
        "st_world/st-default-eldoria.json",
        "st_world/st-2023-toaru.json",
        "risu/risu-merry-rpg-ko.json",
        "novelai/nai-ripple-v4.lorebook",
        "kobold/kobold-half-life-2.json",
    ],
)
def test_world_to_card_and_back(rel: str) -> None:
    """Through a card: every field survives except extensions, which only grow, and null
    values, which a card cannot carry (they come back as the importer's default); one more
    round trip changes nothing (a fixed point)."""
    book = importers.load(corpus_file(rel)).books[0]
    once = _json(card_json(book, v3=True), "c.json").books[0]
    twice = _json(card_json(once, v3=True), "c.json").books[0]
    for a, b in zip(book.entries or (), once.entries or (), strict=True):
        da, db = dict(a.data), dict(b.data)
        ext_a, ext_b = da.pop("extensions", {}), db.pop("extensions")
        assert set(ext_a) <= set(ext_b)
        assert {k: v for k, v in db.items() if k in da and da[k] is not None} == {
            k: v for k, v in da.items() if v is not None
        }
    assert canonical(world_json(twice)) == canonical(world_json(once))


def test_unchanged_card_book_is_written_back_as_is() -> None:
    imp = importers.load(corpus_file("card_png/cf-arleigh.png"))
    book = imp.books[0]
    assert character_book(book) == book.extra["originalData"]
    assert character_book(book, st_exact=True) != book.extra["originalData"]


def test_untrusted_neutralises_constant_regex_and_activate() -> None:
    world = {
        "entries": {
            "0": {
                "uid": 0,
                "key": ["/a+/i", "plain"],
                "keysecondary": ["/x/"],
                "constant": True,
                "content": "@@activate\n@@@activate\nbody",
            }
        }
    }
    trusted = _json(world).books[0]
    data = dict((trusted.entries or ())[0].data)
    assert data["constant"] is True and data["key"] == ["/a+/i", "plain"]
    imp = _json(world, trust=False)
    entry = (imp.books[0].entries or ())[0]
    assert entry.origin is not None and entry.origin.trusted is False
    assert entry.data["constant"] is False
    assert entry.data["key"] == ["plain"] and entry.data["keysecondary"] == []
    assert entry.content == "@@untrusted_activate\n@@@untrusted_activate\nbody"


def test_modern_chat_with_metadata() -> None:
    header = {
        "user_name": "U",
        "character_name": "C",
        "create_date": "2024-9-28@01h02m03s",
        "chat_metadata": {
            "world_info": "Eldoria",
            "note_prompt": "AN",
            "note_depth": 2,
            "timedWorldInfo": {
                "sticky": {"Eldoria.1": {"hash": 5, "start": 1, "end": 3, "protected": False}},
                "cooldown": {},
            },
            "x_unknown": [1],
        },
    }
    lines = [
        header,
        {"name": "U", "is_user": True, "mes": "hi"},
        {"name": "S", "is_system": True, "mes": "hidden"},
        {"name": "C", "mes": {"message": "chub"}},
    ]
    raw = (
        "\n".join(stringify(x) for x in lines[:2])
        + "\n{broken\n"
        + "\n".join(stringify(x) for x in lines[2:])
    )
    imp = importers.load(raw.encode(), name="chat.jsonl")
    assert imp.format == "st-chat" and imp.chat_metadata["world_info"] == "Eldoria"
    assert imp.chat_metadata["timedWorldInfo"]["sticky"]["Eldoria.1"]["end"] == 3
    assert imp.chat_metadata["x_unknown"] == [1] and "chat_metadata" not in imp.chat_header
    assert [(m.name, m.mes, m.is_user, m.is_system) for m in imp.chat] == [
        ("U", "hi", True, False),
        ("S", "hidden", False, True),
        ("C", "chub", False, False),
    ]


def test_story_unwrapped_by_default_but_not_in_st_mode() -> None:
    path = corpus_file("novelai/nai-tamriel-story-v1-lorebook.story")
    assert len(importers.load(path).books[0].entries or ()) == 100
    with pytest.raises(importers.LorebookImportError):
        importers.load(path, st_compatible=True)


def test_card_precedence_and_fallback() -> None:
    card: dict[str, Any] = {"spec": "chara_card_v2", "data": {"name": "V2"}}
    v3 = {"spec": "chara_card_v3", "data": {"name": "V3"}}

    def enc(o: JSONValue) -> str:
        return base64.b64encode(stringify(o).encode()).decode()

    png = png_card_bytes(card)
    both = replace_text_chunks(
        png, [("chara", enc(card)), ("CCV3", enc(v3))], limits=DEFAULT_LIMITS
    )
    assert importers.load(both, name="a.png").character.name == "V3"  # type: ignore[union-attr]
    broken = replace_text_chunks(
        png, [("ccv3", "!!notjson"), ("chara", enc(card))], limits=DEFAULT_LIMITS
    )
    assert importers.load(broken, name="a.png").extracted_from == "chara"
    with pytest.raises(importers.LorebookImportError):
        importers.load(broken, name="a.png", st_compatible=True)
    z = b"chara\x00\x00" + zlib.compress(enc(v3).encode())
    chunk = struct.pack(">I4s", len(z), b"zTXt") + z + struct.pack(">I", zlib.crc32(b"zTXt" + z))
    plain = replace_text_chunks(png, [], limits=DEFAULT_LIMITS)
    ztxt = plain[:-12] + chunk + plain[-12:]
    assert importers.load(ztxt, name="z.png").character.name == "V3"  # type: ignore[union-attr]
    with pytest.raises(importers.LorebookImportError, match="no character card"):
        importers.load(ztxt, name="z.png", st_compatible=True)


def test_v1_card_fields() -> None:
    imp = _json(
        {
            "name": "N",
            "creatorcomment": "Creator's notes go here.",
            "tags": "a, b,,c",
            "description": "D",
        }
    )
    assert imp.format == "card-v1" and imp.character is not None
    assert imp.character.creator_notes == "" and imp.character.tags == ("a", "b", "c")


def test_depth_prompt_and_linked_world() -> None:
    card: dict[str, Any] = {
        "spec": "chara_card_v2",
        "data": {
            "name": "N",
            "extensions": {
                "world": "W",
                "depth_prompt": {"prompt": "P", "depth": "2", "role": "user"},
            },
        },
    }
    c = _json(card).character
    assert c is not None and (c.book, c.depth_prompt, c.depth_prompt_depth) == ("W", "P", 2)
    assert c.depth_prompt_role == "user"
    card["data"]["character_book"] = {"name": "B", "entries": []}
    linked = _json(card)
    assert linked.books[0].name == "W" and linked.character.book == "W"  # type: ignore[union-attr]
    del card["data"]["extensions"]["world"]
    unlinked = _json(card)
    assert unlinked.books[0].name == "B" and unlinked.character.book == "B"  # type: ignore[union-attr]


def test_bare_books_are_converted() -> None:
    book = {"name": "B", "entries": [{"keys": ["k"], "content": "c", "enabled": True}]}
    bare = _json(book)
    assert bare.format == "character-book" and bare.books[0].entries
    v3 = _json({"spec": "lorebook_v3", "data": book})
    assert v3.format == "lorebook-v3" and v3.books[0].name == "B"


def test_kobold_mapping() -> None:
    save = {
        "gamestarted": True,
        "worldinfo": [
            {
                "key": "a, b,",
                "keyanti": "x",
                "content": "c",
                "widisabled": True,
                "probability": "50",
            }
        ],
    }
    entry = dict((_json(save).books[0].entries or ())[0].data)
    assert entry["key"] == ["a", "b"] and entry["keysecondary"] == ["x"]
    assert entry["selectiveLogic"] == 2 and entry["disable"] is True and entry["probability"] == 50


def test_cli_import_and_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "w.json"
    src = corpus_file("st_world/st-2023-toaru.json")
    assert main(["import", str(src), "-o", str(out)]) == 0
    assert len(json.loads(out.read_text(encoding="utf-8"))["entries"]) == 18
    png = tmp_path / "c.png"
    src = corpus_file("card_png/st-default-seraphina.png")
    assert main(["import", str(src), "--to", "card-v2", "-o", str(png)]) == 0
    assert importers.load(png).character.name == "Seraphina"  # type: ignore[union-attr]
    bad = corpus_file("novelai/nai-ripple-truncated.lorebook")
    capsys.readouterr()
    assert main(["validate", str(out), str(bad)]) == 1
    text = capsys.readouterr().out
    assert (
        "FAIL" in text
        and "truncated" in text
        and [ln[:4] for ln in text.splitlines()].count("ok  ") == 1
    )
    assert main(["import", str(bad)]) == 1
    assert "$: JSON ends unexpectedly" in capsys.readouterr().err
