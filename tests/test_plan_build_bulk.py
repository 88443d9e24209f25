"""The bulk steps of a plan build (one C pass over a column) against the rule they stand
for, applied value by value."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from worldinfo import _js

SAFE = 2**53 - 1
INTEGERS = st.one_of(st.integers(-SAFE, SAFE), st.sampled_from([0, -1, SAFE, -SAFE]))
SCALARS: st.SearchStrategy[Any] = st.one_of(
    INTEGERS,
    st.integers(),  # past the safe range too
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
)
PREFIXES = st.one_of(st.sampled_from(["", "Big.", "%d.", "%%", "a\x00b.", "\x00"]), st.text())


@given(values=st.lists(INTEGERS, max_size=40), prefix=PREFIXES)
def test_prefixed_strings_of_safe_integers_are_each_strings(values: list[int], prefix: str) -> None:
    """``to_strings`` of safe integers (one ``%d`` format, cut) is ``prefix + String(v)``."""
    assert _js.to_strings(values, prefix=prefix) == [prefix + _js.to_string(v) for v in values]


@given(values=st.lists(SCALARS, max_size=40), prefix=PREFIXES)
def test_prefixed_strings_of_any_values_are_each_strings(values: list[Any], prefix: str) -> None:
    """``to_strings`` of mixed values is ``prefix + String(v)`` of each."""
    assert _js.to_strings(values, prefix=prefix) == [prefix + _js.to_string(v) for v in values]
