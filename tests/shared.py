"""The one place tests find data that lives outside ``tests/``: the shared folder.

The shared folder is ``$WORLDINFO_SHARED`` (default ``<repo>/../shared``); CI sets it so the
full set runs. Corpus files whose licence allows it are bundled in ``tests/data/corpus``
(``SOURCE.md`` there records each file's source and licence) and used when the shared folder
lacks them; a test needing a file that is in neither skips with a one-line reason naming it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from worldinfo.conformance.st_import import find_corpus_file

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("WORLDINFO_SHARED") or REPO.parent / "shared")
BUNDLED = REPO / "tests" / "data" / "corpus"
_ROW = re.compile(r"^\| ([a-z_]+/[^ |]+) \|", re.MULTILINE)


def skip(reason: str) -> None:
    """Skip the running test because data it needs is not in this checkout."""
    pytest.skip(reason)


def corpus_names() -> list[str]:
    """Every corpus file the tests know (``card_png/x.png`` ...), bundled or not.

    The names come from ``tests/data/corpus/SOURCE.md`` (both tables) plus whatever the shared
    corpus holds, so a test parametrized over them names each missing file in its skip.
    """
    names = set(_ROW.findall((BUNDLED / "SOURCE.md").read_text(encoding="utf-8")))
    shared = SHARED / "corpus"
    if shared.is_dir():
        names.update(
            p.relative_to(shared).as_posix()
            for p in shared.rglob("*")
            if p.is_file() and p.suffix != ".md"
        )
    return sorted(names)


def corpus_file(rel: str) -> Path:
    """The path of corpus file ``rel``; skips the test when no copy is available."""
    found = find_corpus_file(rel)
    if found is None:
        skip(f"needs corpus/{rel}: licence unknown, not bundled; set WORLDINFO_SHARED")
    assert found is not None
    return found


def shared_file(rel: str) -> Path:
    """The path of ``rel`` inside the shared folder; skips the test when it is missing."""
    path = SHARED / rel
    if not path.exists():
        skip(f"needs {rel} from the shared folder {SHARED} (set WORLDINFO_SHARED)")
    return path
