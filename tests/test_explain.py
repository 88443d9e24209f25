"""``worldinfo explain``: the rendered trace of a few golden cases (snapshots) and the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from golden import case_params
from worldinfo.cli import main
from worldinfo.conformance.st import generate_step, session_for, trace_problem
from worldinfo.explain import REASONS, render_trace, trace_json
from worldinfo.trace import ACTIVATION_REASONS

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden" / "st"
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots" / "explain"
ELDORIA = Path(__file__).resolve().parent / "data" / "eldoria" / "Eldoria.json"

CASES = (
    "feat-budget-cap",  # budget detail, skipped after the overflow
    "feat-probability",  # rolls, four steps
    "feat-recursion-on",  # one entry per recursion loop, found in the recursion text
    "feat-recursion-delay-nonrecursive",  # delay levels drive a recursion pass (Q13)
    "feat-decorators",  # @@activate / @@dont_activate
    "feat-group-override",  # inclusion group losers
    "feat-cooldown",  # timed effects across five steps
    "feat15-trigger-each-type",  # generation-type triggers, eight steps
)


def explain_case(name: str) -> str:
    """Every step of a golden case, scanned with a trace and rendered."""
    case = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    session = session_for(case)
    out = []
    for i, step in enumerate(case["steps"]):
        result = generate_step(session, step, trace=True)
        assert trace_problem(result) == ""
        text = render_trace(result, books=session.books, count_tokens=session.count_tokens)
        out.append(f"== step {i} ({step.get('type', 'normal')}) ==\n{text}")
    return "\n".join(out)


@pytest.mark.parametrize("name", CASES)
def test_explain_snapshot(name: str, snapshot: Any) -> None:
    snapshot.snapshot_dir = SNAPSHOTS
    snapshot.assert_match(explain_case(name), f"{name}.txt")


def test_every_reason_has_words() -> None:
    from worldinfo import trace

    doc = (trace.__doc__ or "").split("Reasons (stable codes):")[1]
    documented = set(re.findall(r"``([a-z_]+)``", doc))
    assert "no_primary_match" in documented and "budget_skipped" in documented
    assert set(ACTIVATION_REASONS) | documented <= set(REASONS)


def test_without_trace_or_with_error() -> None:
    from worldinfo.result import ScanResult

    assert render_trace(ScanResult()) == "no trace: scan with trace=True\n"
    assert render_trace(ScanResult(error="boom")).startswith("SillyTavern would stop here")


def _chat(tmp_path: Path, text: str) -> str:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"name": "User", "mes": text, "is_user": True}]), "utf-8")
    return str(path)


def test_cli_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chat = _chat(tmp_path, "Can your magic keep the beasts out of this glade?")
    assert main(["explain", str(ELDORIA), "--chat", chat]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Loop 1 (initial scan)\n")
    assert "Eldoria#1 shadowfang  activated  key: a key matched" in out
    assert "key 'beast' in message 0 (newest = 0), 270 tokens" in out
    assert "Eldoria#0 eldoria     skipped    no_primary_match: no key matched" in out
    assert "Verdicts: 3 of 4 entries activated" in out


def test_cli_json_matches_the_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chat = _chat(tmp_path, "The glade, the woods.")
    assert main(["explain", str(ELDORIA), "--chat", chat, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    activated = {(a["world"], a["uid"]) for a in data["activated"]}
    assert activated == {("Eldoria", 0), ("Eldoria", 2)}
    verdicts = data["verdicts"]
    assert {(v["world"], v["uid"]) for v in verdicts.values() if v["outcome"] == "activated"} == (
        activated
    )
    assert verdicts["Eldoria.1"]["reason"] == "no_primary_match"
    assert data["loops"][0][0]["loop"] == 1


def test_cli_settings_change_the_explanation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = _chat(tmp_path, "The woodland is quiet.")
    assert main(["explain", str(ELDORIA), "--chat", chat, "--match-whole-words"]) == 0
    assert "Verdicts: 0 of 4 entries activated" in capsys.readouterr().out


def test_trace_json_of_an_error() -> None:
    from worldinfo.result import ScanResult

    assert trace_json(ScanResult(error="x")) == {"activated": [], "error": "x", "scan_loops": 0}


@pytest.mark.parametrize("path", case_params(every=7))
def test_every_activated_entry_is_explained(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    session = session_for(case)
    for step in case["steps"]:
        if step["expect"].get("not_run"):
            continue
        result = generate_step(session, step, trace=True)
        text = render_trace(result, books=session.books)
        if result.error is not None:
            assert text.startswith("SillyTavern would stop here")
            break
        verdicts = text.split("\nVerdicts: ")[1]
        for world, uid in result.activated_keys:
            head = re.compile(rf"  {re.escape(f'{world}#{uid}')}\s")
            rows = [r for r in verdicts.splitlines() if head.match(r)]
            assert rows and all("  activated  " in r for r in rows), (world, uid)
