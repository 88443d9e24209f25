"""Rules the test suite itself keeps: no clock (speed belongs in ``bench/``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = sorted(Path(__file__).resolve().parent.glob("*.py"))
CLOCKS = {"perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time", "time_ns"}


def _clock_calls(tree: ast.AST) -> list[int]:
    """Line numbers of ``time.<clock>(...)`` calls and of ``from time import <clock>``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            value = node.func.value
            if isinstance(value, ast.Name) and value.id == "time" and node.func.attr in CLOCKS:
                lines.append(node.lineno)
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "time"
            and CLOCKS & {a.name for a in node.names}
        ):
            lines.append(node.lineno)
    return sorted(lines)


@pytest.mark.parametrize("path", TESTS, ids=lambda p: p.name)
def test_no_wall_clock_in_tests(path: Path) -> None:
    assert _clock_calls(ast.parse(path.read_text(encoding="utf-8"))) == []


def test_the_clock_rule_can_fail() -> None:
    bad = "import time\nstart = time.perf_counter()\nfrom time import monotonic\n"
    assert _clock_calls(ast.parse(bad)) == [2, 3]
