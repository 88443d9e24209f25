"""Every SillyTavern 1.15.0 macro oracle case in golden/macros."""

from __future__ import annotations

from pathlib import Path

import pytest

from golden import check_outcome, macro_params

PARAMS = list(macro_params())


def test_every_case_is_loaded() -> None:
    assert len(PARAMS) == 114


@pytest.mark.parametrize(("path", "case_id"), PARAMS)
def test_macro_case(path: Path, case_id: str) -> None:
    check_outcome(path, case_id)
