"""Input bounds through the importers and the CLI: entries per book, JSON size, PNG CRCs."""

from __future__ import annotations

import json
import struct
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from worldinfo import importers
from worldinfo.cli import main
from worldinfo.importers import Limits, LorebookImportError
from worldinfo.importers.export import png_card_bytes

MiB = 1024 * 1024


def _refusal(src: bytes, *, name: str, limits: Limits = importers.DEFAULT_LIMITS) -> str:
    with pytest.raises(LorebookImportError) as info:
        importers.load(src, name=name, limits=limits)
    assert "internal error" not in str(info.value)
    return str(info.value)


def _names_limit(message: str, limit: str) -> None:
    assert f"{limit}=" in message  # the limit and its value
    assert f"Limits({limit}=N)" in message and f"--limit {limit}=N" in message  # how to raise


def _entries(n: int) -> list[dict[str, Any]]:
    return [
        {"keys": [f"k{i}"], "content": "c", "enabled": True, "insertion_order": i} for i in range(n)
    ]


def _card(n: int) -> dict[str, Any]:
    book = {"entries": _entries(n)}
    return {
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {"name": "T", "character_book": book},
    }


_AGNAI = {"name": "e", "entry": "t", "keywords": ["k"], "priority": 1, "weight": 1, "enabled": True}


def _nai(n: int) -> dict[str, Any]:
    return {"lorebookVersion": 5, "entries": [{"text": "t", "keys": ["k"]}] * n}


BOOKS: dict[str, tuple[str, Any, str]] = {
    "st-world": (
        "w.json",
        lambda n: {"entries": {str(i): {"uid": i, "key": ["k"]} for i in range(n)}},
        "$.entries",
    ),
    "character-book": ("b.json", lambda n: {"entries": _entries(n)}, "$.entries"),
    "card-v2": ("c.json", _card, "$.data.character_book.entries"),
    "novelai-lorebook": (
        "n.lorebook",
        _nai,
        "$.entries",
    ),
    "risu-lorebook": (
        "r.json",
        lambda n: {"type": "risu", "data": [{"key": "k", "content": "c"}] * n},
        "$.data",
    ),
    "kobold-story": (
        "k.json",
        lambda n: {"worldinfo": [{"key": "k", "content": "c"}] * n},
        "$.worldinfo",
    ),
    "agnai-memory": (
        "a.json",
        lambda n: {"kind": "memory", "name": "m", "entries": [_AGNAI] * n},
        "$.entries",
    ),
    "lorebook-v3": (
        "l.json",
        lambda n: {"spec": "lorebook_v3", "data": {"entries": _entries(n)}},
        "$.data.entries",
    ),
    "novelai-story": (
        "s.story",
        lambda n: {"storyContainerVersion": 1, "content": {"lorebook": _nai(n)}},
        "$.content.lorebook.entries",
    ),
}


@pytest.mark.parametrize("fmt", sorted(BOOKS))
def test_entries_per_book_are_capped(fmt: str) -> None:
    name, make, where = BOOKS[fmt]
    limits = Limits(max_book_entries=10)
    ok = importers.load(json.dumps(make(10)).encode(), name=name, limits=limits)
    assert ok.format == fmt and len(ok.books[0].entries or ()) == 10
    message = _refusal(json.dumps(make(11)).encode(), name=name, limits=limits)
    assert f"{where}: 11 book entries, more than max_book_entries=10" in message
    _names_limit(message, "max_book_entries")


def test_entry_cap_applies_to_a_png_card() -> None:
    png = png_card_bytes(_card(11))
    message = _refusal(png, name="c.png", limits=Limits(max_book_entries=10))
    assert "$.data.character_book.entries: 11 book entries" in message
    assert importers.load(png, name="c.png").books[0].entries is not None


@pytest.mark.parametrize(
    ("limit", "value", "inner"),
    [
        ("max_json_containers", 100, b"[" + b"{}," * 100 + b"{}]"),
        ("max_json_items", 100, b"[" + b'"k",' * 100 + b'"k"]'),
        ("max_json_string_bytes", 100, b'"' + b"x" * 101 + b'"'),
        ("max_json_depth", 5, b"[[[[1]]]]"),
    ],
    ids=["containers", "items", "string", "depth"],
)
def test_json_bounds_refuse_with_the_limit_named(limit: str, value: int, inner: bytes) -> None:
    text = b'{"entries": {"0": {"key": ["k"], "a": ' + inner + b"}}}"
    message = _refusal(text, name="x.json", limits=Limits(**{limit: value}))
    _names_limit(message, limit)
    raised = Limits.parse(f"{limit}={value * 2}")
    assert importers.load(text, name="x.json", limits=raised).books[0].entries is not None


def test_bounds_apply_inside_a_png_chunk_and_a_chat() -> None:
    png = png_card_bytes(_card(200))
    message = _refusal(png, name="c.png", limits=Limits(max_json_containers=50))
    assert ": $.chunks." in message  # located at the card's text chunk
    _names_limit(message, "max_json_containers")
    chat = b'{"user_name": "U", "character_name": "C"}\n' + b'{"mes": [' + b"[]," * 100 + b"[]]}\n"
    message = _refusal(chat, name="c.jsonl", limits=Limits(max_json_containers=50))
    assert "$.1:" in message
    _names_limit(message, "max_json_containers")


def test_legacy_chat_lines_are_capped() -> None:
    chat = json.dumps([f"A: line {i}" for i in range(11)]).encode()
    message = _refusal(chat, name="chat.json", limits=Limits(max_chat_lines=10))
    _names_limit(message, "max_chat_lines")
    assert len(importers.load(chat, name="chat.json").chat) == 11


def test_other_refusals_also_say_how_to_raise_them() -> None:
    big = b'{"entries": {}}' + b" " * 2000
    _names_limit(_refusal(big, name="x.json", limits=Limits(max_file_bytes=1000)), "max_file_bytes")


def test_limits_parse() -> None:
    limits = Limits.parse("max_book_entries=7, max_json_depth=3")
    assert (limits.max_book_entries, limits.max_json_depth) == (7, 3)
    assert limits.json_bounds.max_json_depth == 3
    assert Limits.parse("") == importers.DEFAULT_LIMITS
    for bad in ("max_nothing=1", "max_book_entries=0", "max_book_entries=x"):
        with pytest.raises(ValueError, match="limit"):
            Limits.parse(bad)


def test_60_mib_array_of_empty_objects_is_refused_before_parsing() -> None:
    raw = b"[" + b"{}," * (20 * MiB - 1) + b"{}]"
    assert len(raw) > 60 * MiB
    tracemalloc.start()
    try:
        message = _refusal(raw, name="array.json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    _names_limit(message, "max_json_containers")
    assert peak < 16 * MiB  # parsing would have built 20 million dicts (about 3 GB)


# -- PNG CRCs: accepted, but validate says so ------------------------------------------------


def _bad_crc(png: bytes, chunk_type: bytes) -> bytes:
    at = png.index(chunk_type) - 4
    (length,) = struct.unpack(">I", png[at : at + 4])
    crc_at = at + 8 + length
    return png[:crc_at] + bytes(b ^ 0xFF for b in png[crc_at : crc_at + 4]) + png[crc_at + 4 :]


def test_png_with_a_bad_crc_imports_with_a_warning() -> None:
    png = png_card_bytes(_card(1))
    assert importers.load(png, name="c.png").warnings == ()
    bad = _bad_crc(_bad_crc(png, b"IDAT"), b"tEXt")
    imp = importers.load(bad, name="c.png")
    assert len(imp.books[0].entries or ()) == 1
    (warning,) = imp.warnings
    assert (
        warning.json_path.startswith("$.chunks.") and "bad CRC in 2 PNG chunks" in warning.message
    )
    assert "IDAT" in warning.message and "tEXt" in warning.message


def test_validate_prints_the_crc_warning_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "card.png"
    path.write_bytes(_bad_crc(png_card_bytes(_card(1)), b"IDAT"))
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"ok   {path}") and "  warning: $.chunks." in out and "bad CRC" in out
    assert main(["validate", "-q", str(path)]) == 0
    assert f"{path}: warning: $.chunks." in capsys.readouterr().out


# -- the CLI option ---------------------------------------------------------------------------


def test_cli_limit_option_lowers_and_raises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = tmp_path / "w.json"
    world.write_text(json.dumps(BOOKS["st-world"][1](20)), encoding="utf-8")
    assert main(["validate", "--limit", "max_book_entries=19", str(world)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "max_book_entries=19" in out and "--limit max_book_entries=N" in out
    assert main(["validate", "--limit", "max_book_entries=20", str(world)]) == 0
    assert main(["scan", str(world), "--limit", "max_book_entries=19"]) == 1
    assert "max_book_entries=19" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["validate", "--limit", "max_everything=1", str(world)])
    assert info.value.code == 2
    assert "unknown limit 'max_everything'" in capsys.readouterr().err


def test_cli_chat_goes_through_the_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = tmp_path / "w.json"
    world.write_text('{"entries": {}}', encoding="utf-8")
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps([{"mes": "hi", "name": "U", "is_user": True}] * 50), encoding="utf-8"
    )
    assert main(["scan", str(world), "--chat", str(chat)]) == 0
    capsys.readouterr()
    assert main(["scan", str(world), "--chat", str(chat), "--limit", "max_json_containers=10"]) == 1
    err = capsys.readouterr().err
    assert "max_json_containers=10" in err and "--limit max_json_containers=N" in err
