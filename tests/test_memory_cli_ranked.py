"""``worldinfo memory`` with the bundled dated chat: dates reach the store, ranked queries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from worldinfo.cli import main
from worldinfo.examples import path as example

CHAT = example("memory-chat.jsonl")


def _query(db: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["memory", "query", "--db", str(db), "--ranking", "ranked", "--json", *args]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_ingest_keeps_dates_and_ranked_query_answers_by_day(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "m.db"
    assert main(["memory", "ingest", str(CHAT), "--db", str(db)]) == 0
    assert "12 exchanges, 12 ingested" in capsys.readouterr().out
    hidden = _query(db, capsys, "Which book did you recommend?")
    assert hidden["hits"] == [] and "newest 20" in str(hidden["note"])
    got = _query(db, capsys, "--exclusion", "0", "Which book did you recommend?")
    hits = got["hits"]
    assert isinstance(hits, list) and hits[0]["timestamp"].startswith("2025-06-07")
    assert "Lantern Keeper" in str(got["block"])
    day = _query(db, capsys, "--exclusion", "0", "--top", "5", "What did I do on June 4th?")
    assert day["days"] == ["2025-06-04", "2025-06-04"]
    assert {h["timestamp"][:10] for h in day["hits"]} == {"2025-06-04"}
    empty = _query(db, capsys, "--exclusion", "0", "What did I do on June 5th?")
    assert empty["hits"] == [] and empty["note"] == "no stored exchange dated on 2025-06-05"
    rel = _query(db, capsys, "--exclusion", "0", "--now", "2025-06-05T20:00", "and yesterday?")
    assert {h["timestamp"][:10] for h in rel["hits"]} == {"2025-06-04"}


def test_text_output_names_refs_dates_and_the_reason_for_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "m.db"
    assert main(["memory", "ingest", str(CHAT), "--db", str(db)]) == 0
    capsys.readouterr()
    argv = ["memory", "query", "--db", str(db), "--ranking", "ranked", "--exclusion", "0"]
    assert main([*argv, "What did I bake?"]) == 0
    out = capsys.readouterr().out
    assert "memory-chat#6:" in out and "2025-06-07T" in out and "sourdough" in out
    assert main([*argv, "What did we do on June 5th?"]) == 0
    assert "pick: no memory (no stored exchange dated on 2025-06-05)" in capsys.readouterr().out
    assert main([*argv, "--now", "soon", "hello"]) == 1
    assert "soon" in capsys.readouterr().err
