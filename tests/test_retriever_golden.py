"""The Z-Waif retriever cases (``golden/zwaif``) as parametrized tests, one per query."""

from __future__ import annotations

from pathlib import Path

import pytest

from golden import check_outcome, zwaif_params


@pytest.mark.parametrize(("path", "case_id"), list(zwaif_params()))
def test_zwaif_case(path: Path, case_id: str) -> None:
    check_outcome(path, case_id)
