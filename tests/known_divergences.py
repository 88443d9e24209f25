"""Golden cases that do not pass yet, each with a one-line reason ("not yet: <mechanism>").

Applied as strict xfails by ``tests/golden.py``: the moment a case passes, it fails the
suite until its line is removed. This list only shrinks.
"""

from __future__ import annotations

KNOWN_DIVERGENCES: dict[str, str] = {}
