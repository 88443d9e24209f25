"""``stringify`` writes plain objects with the C ``json`` encoder: the same text as its own
JavaScript rules (key order, number formatting, escapes, ``undefined``) on any value."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo._js import objects
from worldinfo._js.values import UNDEFINED, JSONValue

_TEXT = st.text(
    alphabet=st.sampled_from(
        ["a", '"', "\\", "\n", "\x00", "\x1f", "\x7f", "é", "\u2028", "😀", "\ud800", "\udfff", "/"]
    ),
    max_size=6,
)
_KEYS = st.one_of(st.sampled_from(["a", "0", "12", "01", "-1", "", "²", "4294967295"]), _TEXT)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.sampled_from([2**53 - 1, 2**53, -(2**53), 1.0, 1.5, 1e21, float("nan"), float("inf")]),
    st.just(UNDEFINED),
    _TEXT,
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=12,
)


def _by_rules(value: JSONValue, monkeypatch: pytest.MonkeyPatch) -> str:
    with monkeypatch.context() as m:
        m.setattr(objects, "_dumps_alike", lambda _: False)
        return objects.stringify(value)


@settings(max_examples=400)
@given(st.dictionaries(_KEYS, _VALUES, max_size=6))
def test_fast_text_is_the_rules_text(value: dict[str, JSONValue]) -> None:
    with pytest.MonkeyPatch.context() as mp:
        expected = _by_rules(value, mp)
    assert objects.stringify(value) == expected


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"b": 1, "a": "x\ny"}, '{"b":1,"a":"x\\ny"}'),
        ({"1": "one", "a": True}, '{"1":"one","a":true}'),  # index keys first
        ({"a": 1.0, "b": None}, '{"a":1,"b":null}'),  # JavaScript number text
        ({"a": UNDEFINED, "b": [UNDEFINED]}, '{"b":[null]}'),
        ({"a": "\ud800"}, '{"a":"\\ud800"}'),  # a lone surrogate is escaped
        ({"a": "\x01é"}, '{"a":"\\u0001é"}'),
    ],
)
def test_known_texts(value: dict[str, JSONValue], text: str) -> None:
    assert objects.stringify(value) == text
