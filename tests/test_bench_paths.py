"""Every benchmark imports ``worldinfo`` from ``PYTHONPATH`` when one is given.

A side-by-side run against an older checkout is ``PYTHONPATH=../base python bench/x.py``: a
script that put its own checkout first on ``sys.path`` would silently measure the new code
twice. Each script is run with ``PYTHONPATH`` naming a stand-in ``worldinfo`` that exits with
a code of its own as soon as it is imported.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
STAND_IN_EXIT = 97


def _imports_worldinfo(script: Path) -> bool:
    """Does ``script`` import ``worldinfo`` at its top level?"""
    for node in ast.parse(script.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("worldinfo"):
            return True
        if isinstance(node, ast.Import) and any(a.name == "worldinfo" for a in node.names):
            return True
    return False


# the scripts that import worldinfo at once; matcher.py imports it after reading its arguments
AT_IMPORT = sorted(p.name for p in BENCH.glob("*.py") if _imports_worldinfo(p))
ARGS = {"matcher.py": ["--repeats", "1", "--case", "no-such-case.json"]}


@pytest.mark.parametrize("script", [*AT_IMPORT, "matcher.py"])
def test_pythonpath_wins(script: str, tmp_path: Path) -> None:
    fake = tmp_path / "worldinfo"
    fake.mkdir()
    (fake / "__init__.py").write_text(f"raise SystemExit({STAND_IN_EXIT})\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    args = ARGS.get(script, ["--help"])
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == STAND_IN_EXIT, (script, done.stderr[-500:])


def test_the_scripts_that_import_at_once_are_found() -> None:
    assert {"macros.py", "recall.py", "replay.py", "store_concurrency.py", "scan.py"} <= set(
        AT_IMPORT
    )
