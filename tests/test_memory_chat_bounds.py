"""Chats read for memory are bounded before their text is parsed (issue 11, input bounds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from worldinfo.cli import main
from worldinfo.sources.retriever_chat import parse_st_chat, read_chat_text


def _chat(path: Path, n: int) -> Path:
    lines = [json.dumps({"user_name": "U", "character_name": "C"})]
    for i in range(n):
        lines.append(json.dumps({"name": "U", "is_user": i % 2 == 0, "mes": f"message {i}"}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_chat_over_the_size_limit_is_refused_before_reading(tmp_path: Path) -> None:
    chat = _chat(tmp_path / "c.jsonl", 10)
    with pytest.raises(ValueError, match="over the limit of 100 .max_bytes"):
        read_chat_text(chat, max_bytes=100)
    assert "message 9" in read_chat_text(chat)


def test_line_count_and_json_bounds_apply_to_each_line(tmp_path: Path) -> None:
    text = _chat(tmp_path / "c.jsonl", 10).read_text(encoding="utf-8")
    assert len(parse_st_chat(text)[1]) == 10
    with pytest.raises(ValueError, match="more than 5 lines .max_lines"):
        parse_st_chat(text, max_lines=5)
    deep = "[" * 500 + "]" * 500
    with pytest.raises(ValueError, match="line 2: .*max_json_depth"):
        parse_st_chat(text.splitlines()[0] + "\n" + deep + "\n")


def test_memory_ingest_reports_a_hostile_line_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = tmp_path / "c.jsonl"
    chat.write_text('{"user_name": "U"}\n' + "[" * 500 + "]" * 500 + "\n", encoding="utf-8")
    code = main(["memory", "ingest", str(chat), "--db", str(tmp_path / "m.db")])
    err = capsys.readouterr().err
    assert code == 1 and "max_json_depth" in err and "Traceback" not in err
