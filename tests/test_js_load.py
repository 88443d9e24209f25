"""The fast loading path against the straightforward one it replaced, on adversarial input.

``parse_json`` lets the C scanner build each object and reorders only objects that hold an
array-index key; the reference here is the straightforward ``JSON.parse`` model (assign the
pairs in text order, then enumerate array indexes first, ascending). ``structure_of`` must cut
the same strings as the string regex; ``Book.from_json(js_ordered=True)`` must build the same
book as the copying path.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo._js import bounds as bounds_module
from worldinfo._js import in_js_order, js_key_order, parse_json
from worldinfo.types import Book, Entry, Origin


def _reference_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d: dict[str, Any] = {}
    for k, v in pairs:
        d[k] = v  # a repeated key keeps its first position and takes the last value
    return {k: d[k] for k in js_key_order(d)}


def _no_constants(name: str) -> float:
    raise ValueError(name)


def _reference_parse(text: str) -> Any:
    return json.loads(text, object_pairs_hook=_reference_hook, parse_constant=_no_constants)


def _shape(value: Any) -> Any:
    """``value`` with every object's key order and every number's type made comparable."""
    if isinstance(value, dict):
        return ("object", [(k, _shape(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("array", [_shape(v) for v in value])
    return (type(value).__name__, repr(value))


# Keys that are, or nearly are, array indexes (and how JSON may spell them).
_KEYS = st.sampled_from(
    ["0", "1", "2", "9", "10", "01", "00", "-1", "1.0", " 1", "1 ", "+1", "1e3", "4294967294"]
    + ["4294967295", "4294967296", "99999999999999999999", "\u0661", "\u00b2", "__proto__"]
    + ["constructor", "", "a", "key", "9a", ":", "/", "Z", "\U0001f600", "\ud800"]
)
_SCALARS = st.sampled_from(
    ["null", "true", "false", "0", "-0", "-0.0", "1e400", "-1e400", "1E-400", "3.0"]
    + ["12345678901234567890123", "0.1", "5e-324", '"\\ud800"', '"\\udc00\\ud800"', '"x"']
    + ['"\\u0000"', '"\\"\\\\"', '"\U0001f600"']
)


def _key_text(key: str, escape: bool) -> str:
    if escape:  # every character as a \\u escape: "\\u0031" is the key "1"
        return '"' + "".join(f"\\u{ord(c):04x}" for c in key if ord(c) < 0x10000) + '"'
    return json.dumps(key)


@st.composite
def _json_text(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["scalar", "array", "object", "object"] if depth < 4 else ["s"]))
    if kind == "array":
        return "[" + ",".join(draw(st.lists(_json_text(depth + 1), max_size=4))) + "]"
    if kind == "object":
        members = draw(
            st.lists(
                st.tuples(_KEYS | st.text(max_size=3), st.booleans(), _json_text(depth + 1)),
                max_size=7,
            )
        )
        repeat: bool = draw(st.booleans())
        if members and repeat:  # the same key again, later in the object
            key = members[draw(st.integers(0, len(members) - 1))][0]
            members.append((key, draw(st.booleans()), draw(_json_text(depth + 1))))
        return "{" + ",".join(f"{_key_text(k, e)}:{v}" for k, e, v in members) + "}"
    return draw(_SCALARS)


@settings(max_examples=400, deadline=None)
@given(text=_json_text())
def test_parse_json_matches_the_pairwise_model(text: str) -> None:
    assert _shape(parse_json(text)) == _shape(_reference_parse(text))


def _reference_key_order(keys: list[str]) -> list[str]:
    indexes = [k for k in keys if re.fullmatch(r"0|[1-9][0-9]*", k) and int(k) < 2**32 - 1]
    return sorted(indexes, key=int) + [k for k in keys if k not in indexes]


@settings(max_examples=400, deadline=None)
@given(keys=st.lists(_KEYS | st.sampled_from(["1\n2", "3\n", "\n", "123456789", "1000000000"])))
def test_key_order_matches_the_definition(keys: list[str]) -> None:
    keys = list(dict.fromkeys(keys))  # an object's keys are distinct
    assert js_key_order(keys) == _reference_key_order(keys)


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}', "[1, NaN]"])
def test_nan_and_infinity_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_json(text)


def test_objects_are_enumerated_as_javascript_does() -> None:
    text = '{"b": 1, "10": 2, "__proto__": 3, "2": 4, "b": 5, "01": 6, "\\u0031": 7}'
    got = parse_json(text)
    assert isinstance(got, dict)
    assert list(got.items()) == [("1", 7), ("2", 4), ("10", 2), ("b", 5), ("__proto__", 3)] + [
        ("01", 6)
    ]


def test_an_object_already_in_order_is_returned_as_built() -> None:
    text = '{"entries": {"0": {"uid": 0}, "1": {"uid": 1}, "2": {"uid": 2}}}'
    assert _shape(parse_json(text)) == _shape(_reference_parse(text))


# Text full of what separates strings from structure, with the escapes already hidden.
_BYTES = st.lists(st.sampled_from(list(b'""[]{},a\\\xff')), max_size=40).map(bytes)


@settings(max_examples=500, deadline=None)
@given(text=_BYTES)
def test_structure_of_cuts_the_strings_the_regex_cuts(text: bytes) -> None:
    hidden = bounds_module._HIDES_QUOTE.sub(b"__", text)
    by_regex = bounds_module._short_strings(len(hidden) + 1).sub(b"", hidden)
    assert bounds_module.structure_of(hidden) == re.sub(rb"[^\[\]{},]", b"", by_regex)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet='\\"ab', max_size=24).map(str.encode))
def test_one_pass_hides_the_same_escapes_as_two_replaces(text: bytes) -> None:
    two = text.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    assert bounds_module._HIDES_QUOTE.sub(b"__", text) == two


@settings(max_examples=300, deadline=None)
@given(text=_json_text(depth=1), keys=st.lists(_KEYS, max_size=6))
def test_book_from_parsed_json_is_the_same_book_without_copying(text: str, keys: list[str]) -> None:
    entries = {k: parse_json(text) for k in keys}  # entries in any order, values parsed
    obj = {"entries": entries, "name": "x"}
    copied = Book.from_json("B", obj)
    kept = Book.from_json("B", obj, js_ordered=True)
    assert kept.extra == copied.extra
    assert kept.entries is not None and copied.entries is not None
    assert [_shape(dict(e.data)) for e in kept.entries] == [
        _shape(dict(e.data)) for e in copied.entries
    ]


@pytest.mark.parametrize("js_ordered", [False, True])
def test_book_entries_are_the_entries_the_dataclass_builds(js_ordered: bool) -> None:
    origin = Origin(file="f.json", format="st-world", trusted=False)
    obj: dict[str, Any] = {"entries": {"1": {"uid": 1}, "x": 3, "0": {"uid": 0}}, "name": "n"}
    book = Book.from_json("B", obj, origin=origin, js_ordered=js_ordered)
    # Entry equality reads every field: one the fast constructor left unset would raise
    assert book.entries == (
        Entry(data={"uid": 0}, origin=origin),
        Entry(data={"uid": 1}, origin=origin),
    )


@pytest.mark.parametrize(
    "keys",
    [["0", "1", "2"], ["a", "b"], ["2", "10", "x"], ["1", "0"], ["x", "1"], ["01", "1"], []],
)
def test_keys_already_in_order_come_back_as_the_same_list(keys: list[str]) -> None:
    order = in_js_order(keys)
    assert order == _reference_key_order(keys)
    assert (order is keys) == (order == keys)
