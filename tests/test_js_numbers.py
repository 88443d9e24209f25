"""``Number()`` of arrays (through ``String()``, as ToPrimitive does) and the safe-integer
tests the fast paths take (``safe_integers``, ``to_strings``)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from worldinfo._js import JSONValue, safe_integer_set, safe_integers, to_number, to_string
from worldinfo._js.values import loose_eq_true, to_strings


@pytest.mark.parametrize(
    ("value", "number"),
    [([], 0.0), ([None], 0.0), ([[]], 0.0), ([[None]], 0.0), ([" 7 "], 7.0), (["0x10"], 16.0)],
)
def test_an_array_of_at_most_one_item_is_its_string_as_a_number(
    value: JSONValue, number: float
) -> None:
    assert to_number(value) == number == to_number(to_string(value))


@pytest.mark.parametrize("value", [[1, 2], [True], ["x"], [{}]])
def test_other_arrays_are_nan(value: JSONValue) -> None:
    assert math.isnan(to_number(value))
    assert not loose_eq_true(value)


def test_loose_equality_with_true_goes_through_the_number() -> None:
    ones: list[JSONValue] = [True, 1, 1.0, "1", " 1 ", [1], ["1"], [[1]]]
    others: list[JSONValue] = [False, None, 2, "true", [], [None], {}]
    assert all(map(loose_eq_true, ones))
    assert not any(map(loose_eq_true, others))


values = st.lists(
    st.one_of(
        st.integers(min_value=-(2**54), max_value=2**54),
        st.booleans(),
        st.floats(allow_nan=True),
        st.just("1"),
        st.none(),
    ),
    max_size=6,
)


@given(values)
def test_safe_integers_and_to_strings_agree_with_one_value_at_a_time(vs: list[JSONValue]) -> None:
    safe = bool(vs) and all(type(v) is int and abs(v) <= 2**53 - 1 for v in vs)
    assert safe_integers(vs) == safe
    assert (safe_integer_set(vs) is not None) == (safe or not vs)
    expected = ["w." + to_string(v) for v in vs]
    assert to_strings(vs, prefix="w.") == expected == to_strings(vs, prefix="w.", ints=safe)
