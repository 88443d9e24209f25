"""What makes SillyTavern's scan stop (a truthy non-string content, key or group) is reported
first by the schemas, ``validate`` and ``lint``, with file, book, entry uid and JSON path; and
when a scan does stop, ``scan`` and ``explain`` name the entry too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from worldinfo import Message, Session
from worldinfo.cli import main
from worldinfo.lint import lint, scan_stoppers
from worldinfo.lint.fatal import JS_ERRORS
from worldinfo.types import Book, Entry

CHAT = [{"name": "User", "mes": "The dragon sleeps.", "is_user": True}]


def _book(**fields: Any) -> Book:
    entry = dict(Entry.new(3, key=["dragon"], content="A dragon.").data) | fields
    return Book.from_json("Lore", {"entries": {"3": entry}})


@pytest.mark.parametrize(
    ("fields", "code", "path"),
    [
        ({"content": 5}, "WI110", "$.entries.3.content"),
        ({"content": 5, "disable": True}, "WI110", "$.entries.3.content"),
        ({"key": ["dragon", 42]}, "WI111", "$.entries.3.key.1"),
        ({"group": 5}, "WI112", "$.entries.3.group"),
    ],
)
def test_lint_names_what_stops_the_scan_and_the_engine_agrees(
    fields: dict[str, Any], code: str, path: str
) -> None:
    book = _book(**fields)
    (finding,) = scan_stoppers([book])
    assert (finding.code, finding.json_path, finding.book, finding.uid) == (code, path, "Lore", 3)
    assert finding.severity == "error" and JS_ERRORS[code] in finding.message
    assert code in {f.code for f in lint([book])}
    if code == "WI111":  # the numeric key stops the scan once the string key is tested
        book = _book(key=[42])
    session = Session(books={"Lore": book}, global_books=["Lore"])
    result = session.generate("normal", append=[Message(name="User", mes="dragon", is_user=True)])
    assert result.error == JS_ERRORS[code]


def test_clean_and_falsy_values_do_not_stop() -> None:
    assert scan_stoppers([_book(content=None, group=0, key=["dragon", None, False])]) == []


def _world(tmp_path: Path, **fields: Any) -> str:
    entry = dict(Entry.new(0, key=["dragon"], content="A dragon.").data) | fields
    path = tmp_path / "world.json"
    path.write_text(json.dumps({"entries": {"0": entry}}), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"content": 5}, "$.entries.0.content"),
        ({"key": [42]}, "$.entries.0.key.0"),
        ({"group": 5}, "$.entries.0.group"),
        ({"position": "after"}, "$.entries.0.position"),
    ],
)
def test_world_files_are_refused_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fields: dict[str, Any], where: str
) -> None:
    path = _world(tmp_path, **fields)
    assert main(["validate", path]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"FAIL {path} (st-world)") and f"  {where}: " in out
    assert main(["lint", path]) == 1
    assert f"{path}: {where}: WI000 error" in capsys.readouterr().out
    assert main(["import", path]) == 1
    assert main(["scan", path, "--chat", "-"]) == 1  # never reaches stdin: the book is refused
    assert f"{path}" in capsys.readouterr().err


def _card(tmp_path: Path) -> str:
    """A V2 card whose book entry has a numeric group in its extensions: the card schema
    allows it (extensions are free-form), the converted entry stops SillyTavern's scan."""
    card = {
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": "Ash",
            "character_book": {
                "name": "Ash lore",
                "entries": [
                    {
                        "id": 7,
                        "keys": ["dragon"],
                        "content": "A dragon.",
                        "enabled": True,
                        "insertion_order": 1,
                        "extensions": {"group": 5},
                    }
                ],
            },
        },
    }
    path = tmp_path / "ash.json"
    path.write_text(json.dumps(card), encoding="utf-8")
    return str(path)


def test_card_entry_that_stops_the_scan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    card = _card(tmp_path)
    assert main(["validate", card]) == 1
    out = capsys.readouterr().out
    assert "$.entries.7.group: group is a number (5)" in out
    assert "(book 'Ash lore', entry uid 7)" in out
    assert main(["lint", card, "--json"]) == 1
    (finding,) = [f for f in json.loads(capsys.readouterr().out) if f["code"] == "WI112"]
    assert finding["book"] == "Ash lore" and finding["uid"] == 7
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(CHAT), encoding="utf-8")
    assert main(["scan", card, "--chat", str(chat)]) == 1
    out, err = capsys.readouterr()
    assert "item.group.split is not a function" in out
    assert "worldinfo scan: ash.json: book 'Ash lore', entry uid 7, $.entries.7.group:" in err
    assert main(["explain", card, "--chat", str(chat), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["error"] == "item.group.split is not a function"
    assert data["error_at"][0].startswith("ash.json: book 'Ash lore', entry uid 7")
