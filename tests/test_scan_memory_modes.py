"""``scan --memory`` with either retrieval mode (issue 14: the memory source can use both)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from worldinfo.cli import main
from worldinfo.examples import path as example


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
    code = main([*args, "--memory", str(db), "--memory-ranking", ranking, "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    memory = [e for e in out["activated_entries"] if "cinnamon" in str(e.get("content"))]
    assert memory and "Gannet" in str(memory[0]["content"])


def test_an_unknown_ranking_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["scan", str(example("emberfall.json")), "--memory-ranking", "bogus"])
    assert exc.value.code == 2
