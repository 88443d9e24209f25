"""The one loader that turns golden case files into pytest parameters.

Ids read like ``st/feat-budget-cap/step-2``. Steps of one case share a session, so a
case runs once (cached) and each step's test looks its outcome up.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from known_divergences import KNOWN_DIVERGENCES
from shared import skip

from worldinfo.conformance import Outcome, run_file

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "golden"


def mark(case_id: str) -> list[pytest.MarkDecorator]:
    """The strict xfail of a known divergence, if ``case_id`` is one."""
    reason = KNOWN_DIVERGENCES.get(case_id)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def st_params(folder: str = "st") -> Iterator[object]:
    """One parameter per step of every SillyTavern case in ``golden/<folder>``."""
    for path in sorted((GOLDEN / folder).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        name = data.get("name") or path.stem
        for i in range(len(data["steps"])):
            case_id = f"st/{name}/step-{i}"
            yield pytest.param(path, case_id, id=case_id, marks=mark(case_id))


def macro_params(folder: str = "macros") -> Iterator[object]:
    """One parameter per macro case in ``golden/<folder>`` (``macros/macro-0001``)."""
    for path in sorted((GOLDEN / folder).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        case_id = f"macros/{data.get('id') or path.stem}"
        yield pytest.param(path, case_id, id=case_id, marks=mark(case_id))


@functools.lru_cache(maxsize=4)
def outcomes(path: Path) -> dict[str, Outcome]:
    """Run one case file once; its outcomes by id."""
    return {o.case_id: o for o in run_file(path)}


def check_outcome(path: Path, case_id: str) -> None:
    """Fail with the runner's first difference unless ``case_id`` passed."""
    got = outcomes(path).get(case_id)
    assert got is not None, f"{case_id}: the runner produced no outcome"
    if got.skipped:
        skip(got.skipped)
    assert got.ok, got.detail
