"""``scan --memory`` with either retrieval mode (issue 14: the memory source can use both),
and what it may write: nothing, unless ``--memory-ingest`` says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from worldinfo.cli import main
from worldinfo.examples import path as example
from worldinfo.memory import SqliteStore, memory_source


def _chat(tmp_path: Path) -> Path:
    lines = example("emberfall-history.jsonl").read_text(encoding="utf-8").splitlines()
    question = {"name": "User", "is_user": True, "mes": "Which ship carried the cinnamon?"}
    chat = tmp_path / "history.jsonl"
    chat.write_text("\n".join([*lines, json.dumps(question)]) + "\n", encoding="utf-8")
    return chat


@pytest.mark.parametrize("ranking", ["zwaif", "ranked"])
def test_scan_memory_injects_the_exchange_that_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ranking: str
) -> None:
    db = tmp_path / "memory.db"
    args = ["scan", str(example("emberfall.json")), "--chat", str(_chat(tmp_path))]
    code = main(
        [*args, "--memory", str(db), "--memory-ingest", "--memory-ranking", ranking, "--json"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    memory = [e for e in out["activated_entries"] if "cinnamon" in str(e.get("content"))]
    assert memory and "Gannet" in str(memory[0]["content"])


def test_an_unknown_ranking_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["scan", str(example("emberfall.json")), "--memory-ranking", "bogus"])
    assert exc.value.code == 2


def test_a_missing_store_is_an_error_that_names_memory_ingest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "none.db"
    args = ["scan", str(example("emberfall.json")), "--chat", str(_chat(tmp_path))]
    assert main([*args, "--memory", str(db)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"worldinfo scan: {db}: no such store (nothing was created)")
    assert f"`worldinfo memory ingest CHAT --db {db}`" in err and "--memory-ingest" in err
    assert err.count("\n") == 1
    assert list(tmp_path.iterdir()) == [tmp_path / "history.jsonl"]


def test_scan_only_reads_the_store_unless_told_to_ingest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The chat's 52 finished exchanges are not added to a store the scan only reads; with
    ``--memory-ingest`` they are (and a missing store is created)."""
    chat = _chat(tmp_path)
    db = tmp_path / "memory.db"
    with SqliteStore(db) as store:
        store.ingest_many([])
    before = db.read_bytes()
    args = ["scan", str(example("emberfall.json")), "--chat", str(chat), "--memory", str(db)]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert not [e for e in out["activated_entries"] if "cinnamon" in str(e.get("content"))]
    assert db.read_bytes() == before
    with SqliteStore(db, readonly=True) as store:
        assert len(store) == 0
    assert main([*args, "--memory-ingest", "--json"]) == 0
    capsys.readouterr()
    with SqliteStore(db, readonly=True) as store:
        assert len(store) == 52


def test_memory_ingest_needs_a_store(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(example("emberfall.json")), "--memory-ingest"]) == 2
    assert "--memory-ingest: give the store with --memory DB" in capsys.readouterr().err


def test_help_says_the_scan_only_reads_the_store(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["scan", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "neither creates nor changes it" in text and "--memory-ingest" in text


def test_a_readonly_source_cannot_ingest(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="readonly"):
        memory_source(tmp_path / "m.db", readonly=True)
    assert not (tmp_path / "m.db").exists()
