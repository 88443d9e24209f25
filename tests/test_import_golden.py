"""SillyTavern's own import conversions (``golden/import``, ``st-import-golden/1``).

The inputs are corpus files (the shared corpus, else the bundled copies in
``tests/data/corpus``); a case whose input is in neither skips, naming the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from golden import case_files, check_outcome, import_params

CASES = case_files("import")


def test_all_golden_files_present() -> None:
    assert len(CASES) == 24


@pytest.mark.parametrize("path", import_params())
def test_st_import_golden(path: Path) -> None:
    check_outcome(path, f"import/{path.stem}")
