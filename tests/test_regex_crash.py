"""Regex keys that segfault ``regex`` V0 when compiled are refused before it sees them.

Each key is compiled through the engine's path (``regex_key`` and one test) in a child
process, so a regression shows as a failed test instead of a dead test runner.
"""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

CHILD = """
import sys
from worldinfo._js.regex import RegexTimeout, regex_key
key = regex_key(sys.argv[1])
try:
    print(key is not None and key.test("a" * 50))
except RegexTimeout as exc:
    print("refused", exc.reason)
"""


def _compile_in_child(key: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, key], check=False, capture_output=True, text=True, timeout=120
    )


def test_many_empty_matching_counts_are_refused_not_crashing() -> None:
    key = "/" + "(?:a|){60000}" * 12 + "/"  # ~300k unrolled copies: regex V0 segfaults
    done = _compile_in_child(key)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused counted repeat beyond the compile limit")


def test_the_nested_count_crasher_compiles_bounded() -> None:
    done = _compile_in_child("/(?:(?:a|){687}?){587,870}?/")
    assert done.returncode == 0, done.stderr


@settings(max_examples=8, deadline=None)
@given(
    counts=st.lists(st.integers(min_value=1, max_value=100_000), min_size=1, max_size=3),
    repeats=st.integers(min_value=1, max_value=12),
    lazy=st.booleans(),
)
def test_generated_nested_counts_never_crash(counts: list[int], repeats: int, lazy: bool) -> None:
    body = "a|"
    for n in counts:
        body = f"(?:{body}){{{n}}}{'?' if lazy else ''}"
    done = _compile_in_child("/" + body * repeats + "/")
    assert done.returncode == 0, done.stderr
