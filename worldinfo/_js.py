"""JavaScript semantics the engine depends on, and nothing else.

Every place where SillyTavern's behaviour follows from a JavaScript language rule (UTF-16
string lengths, loose truthiness, ``ToNumber``, ``trim``, ``Math.round``, ``JSON.stringify``,
object key order, the ``cyrb53`` string hash, ``mulberry32``) calls a helper from this module.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias

JSONValue: TypeAlias = Any
"""A value as parsed from JSON (the only place ``Any`` is allowed)."""


class Undefined:
    """JavaScript's ``undefined`` where it must be told apart from ``null`` (``None``)."""

    _instance: Undefined | None = None

    def __new__(cls) -> Undefined:  # noqa: PYI034
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"

    def __bool__(self) -> bool:
        return False


UNDEFINED = Undefined()

# JS String.prototype.trim and regex \s: WhiteSpace + LineTerminator.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_WS_CLASS = "[" + "".join(f"\\u{ord(c):04x}" for c in JS_WHITESPACE) + "]"
_WS_RUN = re.compile(JS_WS_CLASS + "+")
_ARRAY_INDEX = re.compile(r"(?:0|[1-9][0-9]*)\Z")


# --- strings -------------------------------------------------------------------------------


def utf16_len(s: str) -> int:
    """Return the JavaScript ``length`` of ``s`` (UTF-16 code units)."""
    if s.isascii():
        return len(s)
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)


def to_utf16_units(s: str) -> list[int]:
    """Return the UTF-16 code units of ``s`` (lone surrogates pass through as themselves)."""
    units: list[int] = []
    for c in s:
        o = ord(c)
        if o > 0xFFFF:
            o -= 0x10000
            units.append(0xD800 + (o >> 10))
            units.append(0xDC00 + (o & 0x3FF))
        else:
            units.append(o)
    return units


def trim(s: str) -> str:
    """``String.prototype.trim``: strip the JavaScript whitespace set."""
    return s.strip(JS_WHITESPACE)


def lower(s: str) -> str:
    """``String.prototype.toLowerCase`` (full Unicode lower-casing, as Python's)."""
    return s.lower()


def split_ws(s: str) -> list[str]:
    """``s.split(/\\s+/)`` with JavaScript whitespace."""
    return _WS_RUN.split(s)


def split_group(s: str) -> list[str]:
    """``s.split(/,\\s*/)``: group names of an entry's ``group`` string."""
    return re.split("," + JS_WS_CLASS + "*", s)


def escape_regex(s: str) -> str:
    """SillyTavern's ``escapeRegex``: backslash the characters ``/-\\^$*+?.()|[]{}``."""
    return re.sub(r"[/\-\\^$*+?.()|\[\]{}]", lambda m: "\\" + m.group(0), s)


# --- loose typing -----------------------------------------------------------------------------


def truthy(v: JSONValue) -> bool:
    """JavaScript truthiness of a JSON value (``[]`` and ``{}`` are truthy, NaN is not)."""
    if v is None or v is UNDEFINED or v is False:
        return False
    if v is True:
        return True
    if isinstance(v, (int, float)):
        return not math.isnan(v) and v != 0
    if isinstance(v, str):
        return v != ""
    return True


def nullish(v: JSONValue) -> bool:
    """True for ``null`` and ``undefined``."""
    return v is None or v is UNDEFINED


def coalesce(v: JSONValue, default: JSONValue) -> JSONValue:
    """``v ?? default``."""
    return default if nullish(v) else v


def to_number(v: JSONValue) -> float:
    """JavaScript ``ToNumber`` of a JSON value."""
    if v is True:
        return 1.0
    if v is False or v is None:
        return 0.0
    if v is UNDEFINED:
        return math.nan
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        t = trim(v)
        if t == "":
            return 0.0
        try:
            if t[:2].lower() in ("0x", "0o", "0b") and len(t) > 2:
                return float(int(t[2:], {"x": 16, "o": 8, "b": 2}[t[1].lower()]))
            if t in ("Infinity", "+Infinity"):
                return math.inf
            if t == "-Infinity":
                return -math.inf
            if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", t):
                return math.nan
            return float(t)
        except ValueError:
            return math.nan
    if isinstance(v, list):
        if not v:
            return 0.0
        if len(v) == 1:
            return to_number(to_string(v[0]))
        return math.nan
    return math.nan


def loose_eq_true(v: JSONValue) -> bool:
    """``v == true`` (abstract equality with the boolean ``true``)."""
    if v is True:
        return True
    if v is None or v is UNDEFINED or v is False:
        return False
    if isinstance(v, (int, float, str)):
        return to_number(v) == 1.0
    if isinstance(v, list):
        return to_number(v) == 1.0
    return False


def strict_eq(a: JSONValue, b: JSONValue) -> bool:
    """``a === b`` for JSON values (numbers compare by value, bools are not numbers)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return a is b
    return type(a) is type(b) and a == b


def js_round(x: float) -> float:
    """``Math.round``: half rounds toward +Infinity."""
    if math.isnan(x) or math.isinf(x):
        return x
    f = math.floor(x)
    return float(f + 1) if x - f >= 0.5 else float(f)


def format_number(x: float) -> str:
    """``Number.prototype.toString()`` (shortest round-trip, JavaScript exponent rules)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int) and abs(x) < 2**53:
        return str(x)
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    r = repr(abs(x))
    mant, _, exp_s = r.partition("e")
    exp = int(exp_s) if exp_s else 0
    int_part, _, frac = mant.partition(".")
    digits = (int_part + frac).lstrip("0")
    # position of the decimal point relative to the start of `digits`
    point = (
        len(int_part.lstrip("0")) + exp
        if int_part.strip("0")
        else exp - (len(frac) - len(frac.lstrip("0")))
    )
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        es = f"+{e}" if e >= 0 else str(e)
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + es
    return sign + out


def to_string(v: JSONValue) -> str:
    """JavaScript ``String(v)`` for JSON values."""
    if v is None:
        return "null"
    if v is UNDEFINED:
        return "undefined"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return format_number(v)
    if isinstance(v, str):
        return v
    if isinstance(v, list):
        return ",".join("" if nullish(x) else to_string(x) for x in v)
    return "[object Object]"


def type_name(v: JSONValue) -> str:
    """``typeof v`` for JSON values."""
    if v is UNDEFINED:
        return "undefined"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    return "object"


# --- objects and JSON -------------------------------------------------------------------------


def is_array_index(key: str) -> bool:
    """True when ``key`` is a canonical array index (enumerates first, ascending)."""
    return bool(_ARRAY_INDEX.match(key)) and int(key) < 4294967295


def js_key_order(keys: Iterable[str]) -> list[str]:
    """Return ``keys`` in JavaScript own-property enumeration order."""
    keys = list(keys)
    idx = sorted((k for k in keys if is_array_index(k)), key=int)
    return idx + [k for k in keys if not is_array_index(k)]


def _object_hook(pairs: list[tuple[str, JSONValue]]) -> dict[str, JSONValue]:
    d: dict[str, JSONValue] = {}
    for k, v in pairs:
        d[k] = v
    if any(is_array_index(k) for k in d):
        return {k: d[k] for k in js_key_order(d)}
    return d


def parse_json(text: str | bytes) -> JSONValue:
    """``JSON.parse``: objects come back with their keys in JavaScript enumeration order."""
    return json.loads(text, object_pairs_hook=_object_hook)


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


def stringify(value: JSONValue) -> str:
    """Compact ``JSON.stringify`` with JavaScript number formatting and key order."""
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


def number_value(v: JSONValue) -> JSONValue:
    """A JavaScript number as Python stores it: integral floats become ints (``3.0`` -> ``3``),
    so values serialise as JavaScript writes them."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return int(v)
    return v


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


# --- hash, random ----------------------------------------------------------------------------


def _imul(a: int, b: int) -> int:
    return (a * b) & 0xFFFFFFFF


def string_hash(s: JSONValue, seed: int = 0) -> int:
    """SillyTavern's ``getStringHash`` (cyrb53 over UTF-16 code units); non-strings hash to 0."""
    if not isinstance(s, str):
        return 0
    h1 = (0xDEADBEEF ^ seed) & 0xFFFFFFFF
    h2 = (0x41C6CE57 ^ seed) & 0xFFFFFFFF
    units: Iterable[int] = (
        s.encode("ascii")
        if s.isascii()
        else memoryview(s.encode("utf-16-le", "surrogatepass")).cast("H")
    )
    mask = 0xFFFFFFFF
    for c in units:  # inlined imul: this loop runs over every character of every entry
        h1 = ((h1 ^ c) * 2654435761) & mask
        h2 = ((h2 ^ c) * 1597334677) & mask
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return 4294967296 * (2097151 & h2) + (h1 & 0xFFFFFFFF)


def mulberry32(seed: int) -> Callable[[], float]:
    """Return the mulberry32 generator the golden cases substitute for ``Math.random``."""
    state = [seed & 0xFFFFFFFF]

    def rng() -> float:
        a = (state[0] + 0x6D2B79F5) & 0xFFFFFFFF
        state[0] = a
        t = _imul(a ^ (a >> 15), a | 1)
        t = t ^ ((t + _imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF)
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    return rng


def st_token_estimate(text: JSONValue) -> int:
    """SillyTavern's fallback token count: ``ceil(utf16_len / 3.35)``; 0 for non-strings."""
    if not isinstance(text, str) or not text:
        return 0
    return math.ceil(utf16_len(text) / 3.35)


def get_path(obj: Mapping[str, JSONValue], key: str) -> JSONValue:
    """Property read that yields ``undefined`` for a missing key."""
    return obj.get(key, UNDEFINED)


# --- operators ---------------------------------------------------------------------------------


class JSError(Exception):
    """A JavaScript exception SillyTavern would throw; ``str(exc)`` is V8's message."""


def _to_primitive(v: JSONValue) -> JSONValue:
    if isinstance(v, (list, dict)):
        return to_string(v)
    return v


def add(a: JSONValue, b: JSONValue) -> JSONValue:
    """The ``+`` operator: string concatenation when either side is a string, else numbers."""
    a, b = _to_primitive(a), _to_primitive(b)
    if isinstance(a, str) or isinstance(b, str):
        return to_string(a) + to_string(b)
    return to_number(a) + to_number(b)


def _compare(a: JSONValue, b: JSONValue) -> float | None:
    """Return a-b sign for relational operators, or None when the result is undefined."""
    a, b = _to_primitive(a), _to_primitive(b)
    if isinstance(a, str) and isinstance(b, str):
        ua, ub = to_utf16_units(a), to_utf16_units(b)
        return -1.0 if ua < ub else (1.0 if ua > ub else 0.0)
    x, y = to_number(a), to_number(b)
    if math.isnan(x) or math.isnan(y):
        return None
    return -1.0 if x < y else (1.0 if x > y else 0.0)


def lt(a: JSONValue, b: JSONValue) -> bool:
    """``a < b``."""
    c = _compare(a, b)
    return c is not None and c < 0


def le(a: JSONValue, b: JSONValue) -> bool:
    """``a <= b``."""
    c = _compare(a, b)
    return c is not None and c <= 0


def gt(a: JSONValue, b: JSONValue) -> bool:
    """``a > b``."""
    c = _compare(a, b)
    return c is not None and c > 0


def ge(a: JSONValue, b: JSONValue) -> bool:
    """``a >= b``."""
    c = _compare(a, b)
    return c is not None and c >= 0


def sort_desc_by_order(items: list[Any]) -> list[Any]:
    """Stable sort by descending ``order`` as V8 does with ``(a, b) => b.order - a.order``.

    ``items`` are mappings. A NaN difference (missing or non-numeric order) counts as
    "equal", which only the comparison-driven TimSort reproduces; CPython's ``list.sort``
    is the same algorithm, so with a comparator it makes the same comparisons.
    """
    nums = [to_number(e.get("order", UNDEFINED)) for e in items]
    if all(math.isfinite(n) for n in nums):
        pairs = sorted(zip(nums, range(len(items))), key=lambda p: -p[0])
        return [items[i] for _, i in pairs]
    import functools

    def cmp(p: tuple[float, int], q: tuple[float, int]) -> int:
        d = q[0] - p[0]
        if math.isnan(d) or d == 0:
            return 0
        return -1 if d < 0 else 1

    pairs = sorted(zip(nums, range(len(items))), key=functools.cmp_to_key(cmp))
    return [items[i] for _, i in pairs]
