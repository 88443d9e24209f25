"""``worldinfo memory ingest|query`` on a chat built from the memorybank set."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from worldinfo.cli import main

BANK = Path(__file__).resolve().parent.parent / "golden" / "memorybank" / "memorybank-en-dev.json"


def _chat(path: Path, user: int = 0) -> list[list[str]]:
    data = json.loads(BANK.read_text(encoding="utf-8"))
    pairs: list[list[str]] = data["users"][user]["exchanges"]
    lines: list[dict[str, object]] = [{"user_name": "You", "character_name": "Companion"}]
    lines.append({"name": "Companion", "is_user": False, "mes": "Hello! (greeting)"})
    for u, r in pairs:
        lines.append({"name": "You", "is_user": True, "mes": u})
        lines.append({"name": "Companion", "is_user": False, "mes": r})
        lines.append({"name": "System", "is_user": False, "is_system": True, "mes": "note"})
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return pairs


def test_ingest_is_idempotent_and_query_shows_the_pick(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat, db = tmp_path / "emily.jsonl", tmp_path / "m.db"
    pairs = _chat(chat)
    assert main(["memory", "ingest", str(chat), "--db", str(db)]) == 0
    assert f"{len(pairs)} ingested" in capsys.readouterr().out
    assert main(["memory", "ingest", str(chat), "--db", str(db)]) == 0
    assert "0 ingested, 0 deleted" in capsys.readouterr().out
    argv = ["memory", "query", "--db", str(db), "--exclusion", "0", "--json"]
    assert main([*argv, "Which science fiction movie did I recommend, Wandering Earth?"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["keywords"] and got["pick"] is not None
    assert got["ranked"][0]["record"] == got["pick"]["record"]
    assert "Wandering Earth" in got["block"]
    assert main(["memory", "query", "--db", str(db), "--exclusion", "0", "zzzz qqqq"]) == 0
    out = capsys.readouterr().out
    assert "keywords:" in out and "pick: no memory" in out


def test_rebuild_is_deterministic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chats = [tmp_path / "b.jsonl", tmp_path / "a.jsonl"]
    _chat(chats[0], 1)
    _chat(chats[1], 2)
    rows = []
    for name in ("one.db", "two.db"):
        db = tmp_path / name
        assert main(["memory", "ingest", *map(str, chats), "--db", str(db), "--rebuild"]) == 0
        con = sqlite3.connect(db)
        rows.append(con.execute("SELECT * FROM records ORDER BY id").fetchall())
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        con.close()
    assert rows[0] == rows[1]
    assert rows[0][0][1].startswith("a#0:")
    capsys.readouterr()


def test_query_on_a_missing_store_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "query", "--db", str(tmp_path / "none.db"), "x"]) == 1
    assert "no such store" in capsys.readouterr().err


def test_reingesting_a_long_chat_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat, db = tmp_path / "long.jsonl", tmp_path / "m.db"
    lines: list[dict[str, object]] = [{"user_name": "You", "character_name": "C"}]
    for i in range(700):
        lines.append({"name": "You", "is_user": True, "mes": f"question {i} w{i % 37}"})
        lines.append({"name": "C", "is_user": False, "mes": f"answer {i} v{i % 53}"})
    chat.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    assert main(["memory", "ingest", str(chat), "--db", str(db)]) == 0
    assert "700 ingested, 0 deleted" in capsys.readouterr().out
    lines = lines[:-2]
    chat.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    assert main(["memory", "ingest", str(chat), "--db", str(db)]) == 0
    assert "0 ingested, 1 deleted" in capsys.readouterr().out
