"""The one loader that turns golden case files into pytest parameters.

Every variant goes through it, so ``known_divergences`` applies everywhere: per step
(``st/feat-budget-cap/step-2``), per whole case (``st/feat-budget-cap``: the reference path,
traced and explained runs; strict xfail when any of its steps is a known divergence), per
retriever query (``zwaif/<file>/q3``), per import case (``import/<file>``), per macro case,
and the mutation runs (``mutate/<case>/seed-7``). Steps of one case share a session, so a
case runs once (cached) and each step's test looks its outcome up.
"""

from __future__ import annotations

import functools
import json
import random
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


def _case_marks(case_id: str) -> list[pytest.MarkDecorator]:
    """A whole case diverges when it, or any one of its steps, is a known divergence."""
    reasons = [
        r for k, r in KNOWN_DIVERGENCES.items() if k == case_id or k.startswith(case_id + "/")
    ]
    return [pytest.mark.xfail(strict=True, reason="; ".join(reasons))] if reasons else []


def case_files(folder: str = "st") -> list[Path]:
    """The case files of ``golden/<folder>``, sorted."""
    return sorted((GOLDEN / folder).glob("*.json"))


def case_params(folder: str = "st", *, every: int = 1) -> list[object]:
    """One parameter per whole SillyTavern case (every ``every``-th file), id ``st/<name>``."""
    return [
        pytest.param(path, id=f"st/{path.stem}", marks=_case_marks(f"st/{path.stem}"))
        for path in case_files(folder)[::every]
    ]


def zwaif_params() -> Iterator[object]:
    """One parameter per query of every Z-Waif retriever case (``zwaif/<file>/q<n>``)."""
    for path in case_files("zwaif"):
        data = json.loads(path.read_text(encoding="utf-8"))
        for n in range(1, len(data["queries"]) + 1):
            case_id = f"zwaif/{path.stem}/q{n}"
            yield pytest.param(path, case_id, id=case_id, marks=mark(case_id))


def import_params() -> list[object]:
    """One parameter per SillyTavern import case (``import/<file>``)."""
    return [
        pytest.param(p, id=f"import/{p.stem}", marks=mark(f"import/{p.stem}"))
        for p in case_files("import")
    ]


def mutation_params(count: int) -> list[object]:
    """One parameter per mutation seed, named after the case the seed picks first."""
    files = case_files("st")
    out: list[object] = []
    for seed in range(count):
        stem = random.Random(seed).choice(files).stem
        case_id = f"mutate/{stem}/seed-{seed}"
        out.append(pytest.param(seed, id=case_id, marks=_case_marks(f"st/{stem}")))
    return out


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
