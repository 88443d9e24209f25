"""JavaScript objects: key enumeration order, ``JSON.parse``/``JSON.stringify``, stable sort."""

from __future__ import annotations

import functools
import json
import math
import operator
import re
from collections.abc import Callable, Iterable

from worldinfo._js.bounds import DEFAULT_JSON_BOUNDS, JSONBounds, check_json_bounds
from worldinfo._js.values import (
    MAX_SAFE_INTEGER,
    UNDEFINED,
    JSONValue,
    format_number,
    number_value,
    to_number,
)

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any

_ARRAY_INDEX = re.compile(r"(?:0|[1-9][0-9]*)\Z")
# Indexes of at most nine digits (all below 2**32 - 1), one per line.
_SHORT_INDEXES = re.compile(r"(?:(?:0|[1-9][0-9]{0,8})\n)*(?:0|[1-9][0-9]{0,8})")


def is_array_index(key: str) -> bool:
    """True when ``key`` is a canonical array index (enumerates first, ascending)."""
    return key[:1].isdigit() and bool(_ARRAY_INDEX.match(key)) and int(key) < 4294967295


def js_key_order(keys: Iterable[str]) -> list[str]:
    """Return ``keys`` in JavaScript own-property enumeration order."""
    return in_js_order(list(keys))


def in_js_order(keys: list[str]) -> list[str]:
    """``keys`` (distinct) in JavaScript enumeration order: the same list object when it
    already is (the common case: no index keys, or only indexes in ascending order)."""
    if not keys or min(keys) >= ":":  # no key starts with a digit
        return keys
    joined = "\n".join(keys)
    if _SHORT_INDEXES.fullmatch(joined) and joined.count("\n") == len(keys) - 1:
        # every key an index below 10**9 (a book's entries), most often ascending already
        ints = list(map(int, keys))
        return keys if all(map(operator.lt, ints, ints[1:])) else sorted(keys, key=int)
    idx = [k for k in keys if is_array_index(k)]
    if not idx:
        return keys
    indexes = set(idx)
    order = sorted(idx, key=int) + [k for k in keys if k not in indexes]
    return keys if order == keys else order


def _object_hook() -> Callable[[dict[str, JSONValue]], dict[str, JSONValue]]:
    """The hook that puts each object the C scanner builds into JavaScript key order.

    The scanner builds ``d`` as JSON.parse does: a repeated key keeps its first position and
    takes the last value. Only a key that starts with a digit can be an array index (any
    such key is smaller than ":", one C-speed ``min``); the keys of objects found free of
    them are remembered for this parse, so the next object with the same keys (the next
    entry of a book) costs one subset test of its keys.
    """
    plain: set[str] = set()

    def hook(d: dict[str, JSONValue]) -> dict[str, JSONValue]:
        if plain.issuperset(d):  # set's own loop over the keys: cheaper than ``d.keys() <=``
            return d
        keys = list(d)
        if min(keys) >= ":":
            plain.update(keys)
            return d
        order = in_js_order(keys)
        return d if order is keys else {k: d[k] for k in order}

    return hook


def _no_constants(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


def parse_json(text: str | bytes, *, bounds: JSONBounds | None = DEFAULT_JSON_BOUNDS) -> JSONValue:
    """``JSON.parse``: objects come back with their keys in JavaScript enumeration order;
    the ``NaN`` / ``Infinity`` literals Python would accept are refused.

    Args:
        text: the JSON text.
        bounds: size limits checked on the text before it is parsed (``None``: the caller
            has checked them).

    Raises:
        JSONLimitError: (a ``ValueError``) when the text exceeds ``bounds``.
        ValueError: when the text is not JSON.
    """
    if bounds is not None:
        check_json_bounds(text, bounds)
    # The cyclic collector is left running: pausing it during the parse only defers the
    # same work (one collection over the whole young book right after, measured no cheaper
    # than the ~20 small ones during the parse).
    return json.loads(text, object_hook=_object_hook(), parse_constant=_no_constants)


def reorder(value: JSONValue) -> JSONValue:
    """Return a copy of ``value`` whose objects enumerate in JavaScript key order."""
    if isinstance(value, dict):
        return {k: reorder(value[k]) for k in js_key_order(value)}
    if isinstance(value, list):
        return [reorder(v) for v in value]
    return value


_ESC = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESC = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')


def _quote(s: str) -> str:
    def esc(m: re.Match[str]) -> str:
        c = m.group(0)
        return _ESC.get(c) or f"\\u{ord(c):04x}"

    return '"' + _NEEDS_ESC.sub(esc, s) + '"'


_DUMPS = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False
).encode
_SURROGATE = re.compile("[\ud800-\udfff]")


def _dumps_alike(value: JSONValue) -> bool:
    """Does the C ``json`` encoder write ``value`` as ``stringify`` does? Strings, booleans,
    ``null``, safe integers, lists and objects without index-like keys (kept in insertion
    order by both): the escapes are the same (``"``, ``\\``, the control characters, lowercase
    ``\\u00xx``) but for lone surrogates, which the caller checks in the output."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(-MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER)
    if kind is list:
        return all(map(_dumps_alike, value))
    if kind is dict:
        obj: dict[str, JSONValue] = value
        return all(type(k) is str and not k[:1].isdigit() for k in obj) and all(
            map(_dumps_alike, obj.values())
        )
    return False  # floats (``1.0`` is ``1``), ``undefined``, anything else


def stringify(value: JSONValue) -> str:
    """Compact ``JSON.stringify`` with JavaScript number formatting and key order."""
    if type(value) is dict and _dumps_alike(value):  # an entry to hash: the C encoder
        text = _DUMPS(value)
        if text.isascii() or not _SURROGATE.search(text):
            return text
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
            return "null"
        return format_number(value)
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, list):
        return "[" + ",".join("null" if v is UNDEFINED else stringify(v) for v in value) + "]"
    if isinstance(value, dict):
        parts = [
            _quote(k) + ":" + stringify(value[k])
            for k in js_key_order(value)
            if value[k] is not UNDEFINED
        ]
        return "{" + ",".join(parts) + "}"
    return "null"


def canonical(value: JSONValue) -> JSONValue:
    """``JSON.parse(JSON.stringify(x))`` then keys sorted: the golden cases' comparison form."""
    if value is UNDEFINED:
        return None
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        return number_value(value)
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in sorted(value.items()) if v is not UNDEFINED}
    if isinstance(value, (list, tuple)):
        return [None if v is UNDEFINED else canonical(v) for v in value]
    return value


_GET_ORDER = operator.methodcaller("get", "order", UNDEFINED)


def sort_desc_by_order(items: list[Any]) -> list[Any]:
    """Stable sort by descending ``order`` as V8 does with ``(a, b) => b.order - a.order``
    (``rank_desc_by_order``)."""
    return list(map(items.__getitem__, rank_desc_by_order(items)))


def rank_desc_by_order(items: list[Any]) -> list[int]:
    """The indices of ``items`` in the order of a stable sort by descending ``order`` as V8
    does with ``(a, b) => b.order - a.order``.

    ``items`` are mappings. A NaN difference (missing or non-numeric order) counts as
    "equal", which only the comparison-driven TimSort reproduces; CPython's ``list.sort``
    is the same algorithm, so with a comparator it makes the same comparisons.
    """
    try:  # a subscript the interpreter specialises (a third of ``get``'s cost)
        orders = [item["order"] for item in items]
    except KeyError:  # some item lacks it: ``undefined`` there
        orders = list(map(_GET_ORDER, items))
    if set(map(type, orders)) == {int} and min(orders) > -(2**53) and max(orders) < 2**53:
        # ``Number(order)`` is the integer itself: one sort by it, descending and stable
        return sorted(range(len(items)), key=orders.__getitem__, reverse=True)
    nums = list(map(to_number, orders))
    if all(math.isfinite(n) for n in nums):
        pairs = sorted(zip(nums, range(len(items)), strict=False), key=lambda p: -p[0])
        return [i for _, i in pairs]

    def cmp(p: tuple[float, int], q: tuple[float, int]) -> int:
        d = q[0] - p[0]
        if math.isnan(d) or d == 0:
            return 0
        return -1 if d < 0 else 1

    pairs = sorted(zip(nums, range(len(items)), strict=False), key=functools.cmp_to_key(cmp))
    return [i for _, i in pairs]
