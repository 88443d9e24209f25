"""Every SillyTavern 1.15.0 oracle case in golden/st, step by step."""

from __future__ import annotations

from pathlib import Path

import pytest

from golden import check_outcome, st_params


@pytest.mark.parametrize(("path", "case_id"), list(st_params("st")))
def test_st_case(path: Path, case_id: str) -> None:
    check_outcome(path, case_id)
