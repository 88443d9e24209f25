"""The SillyTavern performance cases (golden/st-perf: 5,000 entries; a 2,000-message chat
widened to depth 1,000), step by step, through the fast scan path."""

from __future__ import annotations

from pathlib import Path

import pytest

from golden import check_outcome, st_params


@pytest.mark.parametrize(("path", "case_id"), list(st_params("st-perf")))
def test_st_perf_case(path: Path, case_id: str) -> None:
    check_outcome(path, case_id)
