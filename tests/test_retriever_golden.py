"""The Z-Waif retriever cases (``golden/zwaif``) as parametrized tests, one per query."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from golden import GOLDEN, check_outcome, mark


def zwaif_params() -> Iterator[object]:
    for path in sorted((GOLDEN / "zwaif").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for n in range(1, len(data["queries"]) + 1):
            case_id = f"zwaif/{path.stem}/q{n}"
            yield pytest.param(path, case_id, id=case_id, marks=mark(case_id))


@pytest.mark.parametrize(("path", "case_id"), list(zwaif_params()))
def test_zwaif_case(path: Path, case_id: str) -> None:
    check_outcome(path, case_id)
