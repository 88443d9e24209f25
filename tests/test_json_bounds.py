"""``_js.bounds``: the byte scan agrees with counts taken from the parsed value."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from worldinfo._js import (
    JSONBounds,
    JSONLimitError,
    check_json_bounds,
    parse_json,
)
from worldinfo._js import bounds as bounds_module

# Strings full of what could fool a byte scan: quotes, backslashes, brackets, commas.
_TEXT = st.text(alphabet=st.sampled_from('ab"\\[]{},: \n\té\u2028\U0001f600'), max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_TEXT, inner, max_size=5),
    max_leaves=40,
)


def _exact(value: Any, depth: int = 1) -> tuple[int, int, int, int]:
    """(containers, items as commas + containers, depth, longest string in JSON bytes)."""

    def size(s: str) -> int:
        return len(json.dumps(s, ensure_ascii=False).encode("utf-8", "surrogatepass")) - 2

    if isinstance(value, str):
        return 0, 0, 0, size(value)
    if not isinstance(value, (list, dict)):
        return 0, 0, 0, 0
    children = list(value.values()) if isinstance(value, dict) else value
    keys = [size(k) for k in value] if isinstance(value, dict) else []
    containers, items, deepest, longest = 1, max(len(children), 1), depth, max(keys, default=0)
    for child in children:
        c, i, d, s = _exact(child, depth + 1)
        containers, items = containers + c, items + i
        deepest, longest = max(deepest, d), max(longest, s)
    return containers, items, deepest, longest


def _exact_bounds(value: Any) -> JSONBounds:
    containers, items, depth, longest = _exact(value)
    return JSONBounds(
        max_json_depth=max(depth, 1),
        max_json_containers=max(containers, 1),
        max_json_items=max(items, 1),
        max_json_string_bytes=max(longest, 1),
    )


@pytest.fixture(params=[3, 16, 1 << 20], ids=["window-3", "window-16", "window-default"])
def window(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """Small windows put window ends inside strings, escapes and brackets."""
    monkeypatch.setattr(bounds_module, "_WINDOW", request.param)
    return int(request.param)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=_JSON, indent=st.sampled_from([None, 1]))
def test_exact_counts_pass_and_one_less_is_refused(window: int, value: Any, indent: Any) -> None:
    text = json.dumps(value, ensure_ascii=False, indent=indent).encode("utf-8", "surrogatepass")
    containers, items, depth, longest = _exact(value)
    exact = _exact_bounds(value)
    check_json_bounds(text, exact)  # exactly at every bound: accepted
    found = {
        "max_json_depth": depth,
        "max_json_containers": containers,
        "max_json_items": items,
        "max_json_string_bytes": longest,
    }
    for name, count in found.items():
        if count > 1:  # a bound of count - 1 is still a valid (positive) bound
            with pytest.raises(JSONLimitError) as info:
                check_json_bounds(text, replace(exact, **{name: count - 1}))
            assert info.value.limit == name and info.value.allowed == count - 1


@pytest.mark.parametrize(
    ("text", "limit", "words"),
    [
        (b"[" + b"{}," * 999 + b"{}]", "max_json_containers", "arrays and objects"),
        (b"[" + b"1," * 2000 + b"1]", "max_json_items", "values"),
        (b'["' + b"x" * 5000 + b'"]', "max_json_string_bytes", "byte 1"),
        (b"[" * 101 + b"]" * 101, "max_json_depth", "deeper than"),
        (b'{"a": "' + b"\\u0041" * 1000 + b'"}', "max_json_string_bytes", "byte 6"),
        (b'"a"' * 2002, "max_json_items", "strings than two per item"),
        (b'["' + b"y" * 3_000_000 + b'"]', "max_json_string_bytes", "byte 1"),
    ],
    ids=["containers", "items", "string", "depth", "escaped-string", "strings", "window-string"],
)
def test_each_bound_names_itself(text: bytes, limit: str, words: str) -> None:
    small = JSONBounds(max_json_containers=500, max_json_items=1000, max_json_string_bytes=4000)
    with pytest.raises(JSONLimitError, match=words) as info:
        check_json_bounds(text, small)
    assert info.value.limit == limit and limit in str(info.value)


def test_escaped_quotes_and_backslashes_do_not_end_strings() -> None:
    # the brackets and commas are inside strings: a naive count would see 3000 containers
    tricky = json.dumps(["\\", '\\"[{,', '"' * 3, "[" * 1000 + "{" * 2000]).encode()
    check_json_bounds(tricky, JSONBounds(max_json_containers=1, max_json_items=4))


def test_unbalanced_closers_are_left_to_the_parser() -> None:
    junk = b"[" * 50 + b"]" * 100_000
    check_json_bounds(junk)  # the parser stops at the 51st closer; no limit is in play
    with pytest.raises(ValueError, match="Extra data"):
        parse_json(junk)


def test_truncated_text_keeps_its_own_error() -> None:
    with pytest.raises(ValueError, match="Unterminated string"):
        parse_json(b'{"entries": {"0": {"content": "abc' + b"d" * 200)


def test_parse_json_is_bounded_by_default() -> None:
    with pytest.raises(JSONLimitError, match="max_json_containers=500000"):
        parse_json(b"[" + b"[]," * 600_000 + b"[]]")
    assert (
        parse_json(
            b"[" + b"[]," * 600_000 + b"[]]",
            bounds=JSONBounds(max_json_containers=10**6, max_json_items=10**7),
        )
        is not None
    )


def test_str_input_is_measured_in_utf8_bytes() -> None:
    text = json.dumps(["é" * 10], ensure_ascii=False)
    check_json_bounds(text, JSONBounds(max_json_string_bytes=20, max_json_items=1))
    with pytest.raises(JSONLimitError):
        check_json_bounds(text, JSONBounds(max_json_string_bytes=19))


def _windows_accept(text: bytes, bounds: JSONBounds) -> bool:
    """The window scan's answer alone (the whole-text count switched off)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bounds_module, "_within_at_once", lambda *_: False)
        try:
            check_json_bounds(text, bounds)
        except JSONLimitError:
            return False
    return True


@settings(max_examples=150, deadline=None)
@given(value=_JSON, indent=st.sampled_from([None, 1]))
def test_the_whole_text_count_answers_as_the_window_scan(value: Any, indent: Any) -> None:
    text = json.dumps(value, ensure_ascii=False, indent=indent).encode("utf-8", "surrogatepass")
    hidden = bounds_module._HIDES_QUOTE.sub(b"__", text)
    exact = _exact_bounds(value)
    for name in ("", *(f for f in exact.__dataclass_fields__ if getattr(exact, f) > 1)):
        bounds = replace(exact, **{name: getattr(exact, name) - 1}) if name else exact
        if len(hidden) <= bounds.max_json_string_bytes + 1:  # else it is not asked
            assert bounds_module._within_at_once(hidden, bounds) == _windows_accept(text, bounds)


# Junk: unbalanced brackets, strings left open, brackets and commas inside strings.
_JUNK = st.lists(st.sampled_from(list(b'""[[]]{{}},a\\')), max_size=60).map(bytes)


@settings(max_examples=400, deadline=None)
@given(text=_JUNK, depth=st.integers(1, 6), items=st.integers(1, 30))
def test_the_whole_text_count_accepts_nothing_the_window_scan_refuses(
    text: bytes, depth: int, items: int
) -> None:
    bounds = JSONBounds(max_json_depth=depth, max_json_containers=items, max_json_items=items)
    assert len(text) <= bounds.max_json_string_bytes + 1
    hidden = bounds_module._HIDES_QUOTE.sub(b"__", text)
    if bounds_module._within_at_once(hidden, bounds):
        assert _windows_accept(text, bounds)


def test_a_text_deeper_than_the_passes_goes_to_the_window_scan() -> None:
    deep = b"[" * 40 + b"]" * 40
    assert not bounds_module._within_at_once(deep, JSONBounds())
    check_json_bounds(deep)  # still within the default depth of 100: the window scan says so
    with pytest.raises(JSONLimitError, match="deeper than"):
        check_json_bounds(deep, JSONBounds(max_json_depth=39))
