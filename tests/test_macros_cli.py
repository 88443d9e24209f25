"""``worldinfo macros``: the evaluator for authors, with an injected clock and zone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from worldinfo.cli import main

NOW = ["--now", "2025-03-14T15:09:26Z", "--tz", "Asia/Tokyo"]


def test_macros_text_with_clock_and_zone(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["macros", "{{user}}: {{time}} {{isodate}} {{weekday}}", "--user", "Ann", *NOW])
    assert code == 0
    assert capsys.readouterr().out == "Ann: 12:09 AM 2025-03-15 Saturday\n"


def test_macros_json_shows_variables_and_chat_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"name": "Ann", "mes": "hi there", "is_user": True}]))
    text = "{{setvar::mood::calm}}{{getvar::mood}} / {{lastUserMessage}} / {{roll:d1}}"
    assert main(["macros", text, "--chat", str(chat), "--seed", "3", "--json", *NOW]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["output"] == "calm / hi there / 1"
    assert out["variables"] == {"mood": "calm"}


def test_macros_bad_zone_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["macros", "{{time}}", "--tz", "Mars/Olympus"]) == 2
    assert "Mars/Olympus" in capsys.readouterr().err


def test_macros_naive_now_is_a_wall_time_in_the_zone(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["macros", "{{datetimeformat YYYY-MM-DD HH:mm Z}}", "--now", "2025-07-01T09:30"]
    assert main([*args, "--tz", "Europe/Berlin"]) == 0
    assert capsys.readouterr().out == "2025-07-01 09:30 +02:00\n"


def test_scan_takes_now_and_tz(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = tmp_path / "w.json"
    entry = {"uid": 0, "key": ["tower"], "content": "It is {{weekday}}.", "constant": False}
    book.write_text(json.dumps({"entries": {"0": entry}}))
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(["the tower"]))
    assert main(["scan", str(book), "--chat", str(chat), "--json", *NOW]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [e["content"] for e in out["activated_entries"]] == ["It is Saturday."]


def test_untrusted_scan_stores_no_variables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / "w.json"
    entry = {"uid": 0, "key": ["tower"], "content": "{{setvar::seen::1}}ok", "position": 0}
    book.write_text(json.dumps({"entries": {"0": entry}}))
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(["the tower"]))
    for flags, stored in (([], {"seen": "1"}), (["--untrusted"], None)):
        assert main(["scan", str(book), "--chat", str(chat), "--json", *NOW, *flags]) == 0
        out = json.loads(capsys.readouterr().out)
        assert [e["content"] for e in out["activated_entries"]] == ["ok"]
        assert out["chat_metadata"].get("variables") == stored


def test_macros_with_a_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = {"name": "Sera", "description": "{{user}}'s guide", "personality": "calm"}
    card = tmp_path / "card.json"
    card.write_text(json.dumps({"spec": "chara_card_v2", "spec_version": "2.0", "data": data}))
    text = "{{char}}: {{description}} ({{personality}})"
    assert main(["macros", text, "--card", str(card), "--user", "Ann"]) == 0
    assert capsys.readouterr().out == "Sera: Ann's guide (calm)\n"
    assert main(["macros", text, "--card", str(tmp_path / "missing.json")]) == 1
