"""The command line: demo, scan, golden (exit codes, summaries, errors naming the file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from golden import GOLDEN
from worldinfo.cli import main
from worldinfo.examples import path as example


def test_demo_runs_without_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "Activated 7 entries" in out
    assert "key 'Mira' in recursion text" in out
    assert "Verdicts: 7 of 10 entries activated" in out


def test_scan_json_lists_activations_and_timed_state(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["scan", str(example("emberfall.json")), "--chat", str(example("emberfall-chat.json")),
         "--recursive", "--depth", "4", "--seed", "7", "--json"]
    )  # fmt: skip
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert [a["uid"] for a in data["activated"]] == [0, 5, 1, 6, 4, 2, 3]
    sticky = data["chat_metadata"]["timedWorldInfo"]["sticky"]
    assert list(sticky) == ["emberfall.3"] and sticky["emberfall.3"]["end"] == 6


def test_scan_without_recursion_stops_at_the_chat(capsys: pytest.CaptureFixture[str]) -> None:
    chat = str(example("emberfall-chat.json"))
    assert main(["scan", str(example("emberfall.json")), "--chat", chat, "--json"]) == 0
    uids = [a["uid"] for a in json.loads(capsys.readouterr().out)["activated"]]
    assert 2 not in uids and 3 not in uids


def test_scan_reports_a_broken_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{"entries": {"0": {"uid": 0, "key": ["x"]}', encoding="utf-8")
    assert main(["scan", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "broken.json" in err


def test_golden_summary_and_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = json.loads((GOLDEN / "st" / "feat-sticky.json").read_text(encoding="utf-8"))
    assert main(["golden", str(GOLDEN / "st" / "feat-sticky.json")]) == 0
    assert capsys.readouterr().out.strip().endswith(f"{len(case['steps'])} passed, 0 failed")
    case["steps"][0]["expect"]["before"] = "something else"
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(case), encoding="utf-8")
    assert main(["golden", str(wrong)]) == 1
    out = capsys.readouterr().out
    assert "FAIL st/feat-sticky/step-0: before:" in out
    assert out.strip().endswith(f"{len(case['steps']) - 1} passed, 1 failed")


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
