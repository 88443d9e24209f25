"""SillyTavern's own import conversions (``golden/import``, ``st-import-golden/1``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from worldinfo.conformance import run_file
from worldinfo.conformance.st_import import corpus_dir

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "import"
CASES = sorted(GOLDEN.glob("*.json"))


def test_all_golden_files_present() -> None:
    assert len(CASES) == 24


@pytest.mark.skipif(not corpus_dir().is_dir(), reason="shared corpus not found")
@pytest.mark.parametrize("path", CASES, ids=[f"import/{p.stem}" for p in CASES])
def test_st_import_golden(path: Path) -> None:
    outcomes = list(run_file(path))
    assert len(outcomes) == 1
    assert outcomes[0].ok, outcomes[0].detail
