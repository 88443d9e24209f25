"""The straightforward path (no prepared-entry cache, no key index) is exact too.

Sessions with activation sources plugged in run it, so every golden case runs through it
as well as through the fast path (``tests/test_golden_st.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from golden import case_params
from worldinfo._js import parse_json
from worldinfo.conformance.st import first_difference, generate_step, observed, session_for


@pytest.mark.parametrize("path", case_params())
def test_reference_path_matches_the_oracle(path: Path) -> None:
    case = parse_json(path.read_bytes())
    session = session_for(case)
    session.scan_cache = None
    for i, step in enumerate(case["steps"]):
        if step["expect"].get("not_run"):
            continue
        result = generate_step(session, step)
        diff = first_difference(step["expect"], observed(session, result))
        assert not diff, f"step {i}: {diff}"
        if result.error is not None:
            break
