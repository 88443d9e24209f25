"""Tracing: for every golden case the trace agrees with the result and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from golden import GOLDEN, case_params
from worldinfo._js import parse_json
from worldinfo.conformance.st import run_case, session_for


@pytest.mark.parametrize("path", case_params())
def test_traced_run_matches_oracle_and_result(path: Path) -> None:
    case = parse_json(path.read_bytes())
    bad = [o for o in run_case(case, path.stem, trace=True) if not o.ok]
    assert not bad, bad[0].detail


def test_trace_explains_a_key_activation() -> None:
    case = parse_json((GOLDEN / "st" / "feat-recursion-on.json").read_bytes())
    session = session_for(case)
    step = case["steps"][0]
    result = session.generate(step["type"], trace=True)
    assert result.trace is not None
    reasons = {e.reason for e in result.trace.verdicts.values() if e.outcome == "activated"}
    assert "key" in reasons
    found = [e.detail.get("found_in") for e in result.trace.events if e.reason == "key"]
    assert any(f and f.startswith("message") for f in found)
    assert any(f == "recursion text" for f in found)
    json.dumps(result.trace.to_json())


def test_trace_off_records_nothing() -> None:
    case = parse_json((GOLDEN / "st" / "feat-probability.json").read_bytes())
    result = session_for(case).generate("normal")
    assert result.trace is None
