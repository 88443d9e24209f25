"""JavaScript values: ``undefined``, truthiness, ``ToNumber``, ``String()``, equality, operators."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

from worldinfo._js.strings import to_utf16_units, trim

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    JSONValue: TypeAlias = Any
else:
    JSONValue = object  # what Any stands for, without importing typing (start-up time)
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


def truthy(v: JSONValue) -> bool:
    """JavaScript truthiness of a JSON value (``[]`` and ``{}`` are truthy, NaN is not)."""
    if type(v) is int:  # the common case first (``bool`` is not ``int`` here)
        return v != 0
    if v is None or v is UNDEFINED:
        return False
    if type(v) is bool:
        return v
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
    if type(v) is int or type(v) is float:  # the usual value first (``bool`` is not ``int``)
        return float(v)
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
            if t in ("Infinity", "+Infinity", "-Infinity"):
                return -math.inf if t[0] == "-" else math.inf
            if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", t):
                return math.nan
            return float(t)
        except ValueError:
            return math.nan
    if isinstance(v, list) and len(v) <= 1:  # ``String([null])`` is ``""``: 0
        return to_number(to_string(v))
    return math.nan


def loose_eq_true(v: JSONValue) -> bool:
    """``v == true`` (abstract equality with the boolean ``true``)."""
    if v is True:
        return True
    if v is None or v is UNDEFINED or v is False:
        return False
    return isinstance(v, (int, float, str, list)) and to_number(v) == 1.0


def strict_eq(a: JSONValue, b: JSONValue) -> bool:
    """``a === b`` for JSON values (numbers compare by value, bools are not numbers)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return a is b
    return type(a) is type(b) and a == b


MAX_SAFE_INTEGER = 2**53 - 1
"""``Number.MAX_SAFE_INTEGER``: every integer up to it in magnitude is a double exactly."""


def is_safe_integer(v: JSONValue) -> bool:
    """``Number.isSafeInteger`` for a Python ``int`` (``bool`` is not a number).

    Between two safe integers ``===`` is Python's ``==``: both are doubles exactly, so
    ``strict_eq``'s ``float(a) == float(b)`` says the same (and so does set membership).
    """
    return type(v) is int and -MAX_SAFE_INTEGER <= v <= MAX_SAFE_INTEGER


def safe_integer_set(values: Iterable[JSONValue]) -> frozenset[int] | None:
    """``values`` as a set to test ``x === v`` for some ``v`` by membership of a safe
    integer ``x`` (``is_safe_integer``); ``None`` unless every value is a safe integer."""
    got = tuple(values)
    return frozenset(got) if not got or safe_integers(got) else None


def safe_integers(values: Sequence[JSONValue]) -> bool:
    """Is each of ``values``, one at least, ``is_safe_integer``? (types, then extremes, in C)"""
    return (
        set(map(type, values)) == {int}
        and -MAX_SAFE_INTEGER <= min(values) <= max(values) <= MAX_SAFE_INTEGER
    )


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
    if type(v) is int and -(2**53) < v < 2**53:  # the common case (hashes, uids): plain decimal
        return str(v)
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


def to_strings(values: list[JSONValue], *, prefix: str = "", ints: bool | None = None) -> list[str]:
    """``prefix`` + ``to_string`` of each value; safe integers in one C ``%d`` format, cut
    (``ints``: ``safe_integers(values)`` when the caller knows it)."""
    if safe_integers(values) if ints is None else ints:
        row = prefix.replace("%", "%%") + "%d\x00"  # ``%d`` writes them as ``str`` (``String``)
        cut = (row * len(values) % tuple(values)).split("\x00")  # (more for a ``\x00`` prefix)
        return cut[:-1] if len(cut) == len(values) + 1 else [prefix + s for s in map(str, values)]
    return [prefix + (v if type(v) is str else to_string(v)) for v in values]  # (a string as it is)


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


def number_value(v: JSONValue) -> JSONValue:
    """A JavaScript number as Python stores it: integral floats become ints (``3.0`` -> ``3``),
    so values serialise as JavaScript writes them."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
        return int(v)
    return v


def get_path(obj: Mapping[str, JSONValue], key: str) -> JSONValue:
    """Property read that yields ``undefined`` for a missing key."""
    return obj.get(key, UNDEFINED)


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
