"""A yes/no JSON Schema check compiled to closures, so a valid file skips jsonschema.

``jsonschema`` builds a validator object per keyword and per value it descends into: on a
5,000-entry world file that is about 0.6 s spent proving there is nothing to report. The
import schemas use a handful of keywords, so ``compile_check`` turns a schema into one
predicate that answers "would jsonschema (draft 2020-12) report no error?" with the same
rules (``type`` with bool apart from numbers and whole floats as integers, ``enum``/``const``
with its bool-aware equality, applicators that only look at the types they apply to). A
schema with any other keyword compiles to ``None``. When the predicate says no, jsonschema
still runs and writes every problem, so what users read never comes from here.
"""

from __future__ import annotations

import functools
import numbers
import operator
from collections.abc import Callable, Mapping, Sized

from worldinfo.importers.schema_batch import ANNOTATIONS as _ANNOTATIONS
from worldinfo.importers.schema_batch import compile_batch
from worldinfo.interchange import JSONValue

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any, cast
else:
    from worldinfo._lazy import cast

Check = Callable[[JSONValue], bool]

_SCALARS = (str, int, float, type(None))
_ABSENT: Any = object()


def _is_number(x: object) -> bool:
    return not isinstance(x, bool) and isinstance(x, numbers.Number)


def _is_integer(x: object) -> bool:
    if isinstance(x, float):
        return x.is_integer()
    return isinstance(x, int) and not isinstance(x, bool)


_TYPES: dict[str, Check] = {
    # bound ``type.__instancecheck__``: a C call, no Python frame per value
    "object": dict.__instancecheck__,
    "array": list.__instancecheck__,
    "string": str.__instancecheck__,
    "null": functools.partial(operator.is_, None),
    "boolean": bool.__instancecheck__,
    "integer": _is_integer,
    "number": _is_number,
}


def _either(checks: list[Check]) -> Check:
    """True when one of ``checks`` is (two are the common case: no generator)."""
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda x: first(x) or second(x)
    return lambda x: any(c(x) for c in checks)


def _always(_: JSONValue) -> bool:
    return True


def _never(_: JSONValue) -> bool:
    return False


def _scalar_equal(x: JSONValue, value: JSONValue) -> bool:
    """jsonschema's ``equal(x, value)`` for a scalar ``value`` (bool is not a number)."""
    if x is value:
        return True
    if isinstance(x, str) or isinstance(value, str):
        return bool(x == value)
    if isinstance(x, (bool, list, dict)) or isinstance(value, bool):
        return False
    return bool(x == value)


def _type_check(types: Any) -> Check | None:
    names = [types] if isinstance(types, str) else types
    if not isinstance(names, list) or not all(n in _TYPES for n in names):
        return None
    return _either([_TYPES[n] for n in names])


def _enum_check(values: Any) -> Check | None:
    if not isinstance(values, list) or not all(isinstance(v, (*_SCALARS, bool)) for v in values):
        return None
    return lambda x: any(_scalar_equal(x, v) for v in values)


def _object_check(schema: Mapping[str, Any]) -> Check | None:
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    required = schema.get("required", [])
    if not isinstance(props, dict) or not isinstance(required, list):
        return None
    named: list[tuple[str, Check]] = []
    for key, sub in props.items():
        check = compile_check(sub)
        if check is None:
            return None
        if check is not _always:
            named.append((key, check))
    rest = compile_check(extra)
    if rest is None:
        return None
    rest_batch = compile_batch(extra)

    def check_object(x: JSONValue) -> bool:
        if not isinstance(x, dict):
            return True
        if required and not all(r in x for r in required):
            return False
        for key, check in named:
            value = x.get(key, _ABSENT)
            if value is not _ABSENT and not check(value):
                return False
        if rest is _always:
            return True
        if rest is _never:
            return all(k in props for k in x)
        if not props:
            values = list(x.values())
            return (rest_batch is not None and rest_batch(values)) or all(map(rest, values))
        return all(rest(v) for k, v in x.items() if k not in props)

    return check_object


def _leading_type(schema: Any) -> Check | None:
    """The one-type check that alone proves ``schema`` valid: its ``type`` when that is all it
    checks, or the first branch of an ``anyOf`` that is."""
    if not isinstance(schema, dict):
        return None
    rules = {k: v for k, v in schema.items() if k not in _ANNOTATIONS}
    if list(rules) == ["anyOf"] and isinstance(rules["anyOf"], list) and rules["anyOf"]:
        return _leading_type(rules["anyOf"][0])
    if list(rules) == ["type"] and isinstance(rules["type"], str):
        return _TYPES.get(rules["type"])
    return None


def _array_check(items: Any) -> Check | None:
    each = compile_check(items)
    if each is None:
        return None
    if each is _always:
        return _always
    first = _leading_type(items)
    if first is not None:  # one C-speed pass over the items first (a list of key strings)
        return lambda x: not isinstance(x, list) or all(map(first, x)) or all(map(each, x))
    batch = compile_batch(items)
    if batch is not None:  # a list of entries: one pass per property, not one call per entry
        return lambda x: not isinstance(x, list) or batch(x) or all(map(each, x))
    return lambda x: not isinstance(x, list) or all(map(each, x))


def _any_of_check(subs: Any) -> Check | None:
    if not isinstance(subs, list) or not subs:
        return None
    checks = [compile_check(s) for s in subs]
    if any(c is None for c in checks):
        return None
    return _either([c for c in checks if c is not None])


_SIZES: dict[str, tuple[type, Callable[[int, int], bool]]] = {
    # the keyword: the type it applies to, and how len(value) must compare with its number
    "maxLength": (str, operator.le),  # code points, as Python's len counts them
    "minLength": (str, operator.ge),
    "maxItems": (list, operator.le),
    "minItems": (list, operator.ge),
}


def _size_check(key: str, bound: Any) -> Check | None:
    if type(bound) is not int or bound < 0:
        return None
    kind, compare = _SIZES[key]
    return lambda x: not isinstance(x, kind) or compare(len(cast(Sized, x)), bound)


def _prefix_items_check(subs: Any) -> Check | None:
    if not isinstance(subs, list):
        return None
    checks = [compile_check(s) for s in subs]
    if any(c is None for c in checks):
        return None
    each = [c for c in checks if c is not None]
    return lambda x: not isinstance(x, list) or all(c(v) for c, v in zip(each, x, strict=False))


def _keyword_checks(schema: Mapping[str, Any]) -> list[Check] | None:
    checks: list[Check | None] = []
    if "prefixItems" in schema and "items" in schema:
        return None  # ``items`` would apply only after the prefix: not this module's rule
    for key, value in schema.items():
        if key in _ANNOTATIONS or key in ("properties", "additionalProperties", "required"):
            continue
        if key == "type":
            checks.append(_type_check(value))
        elif key == "enum":
            checks.append(_enum_check(value))
        elif key == "const":
            checks.append(_enum_check([value]))
        elif key == "items":
            checks.append(_array_check(value))
        elif key == "anyOf":
            checks.append(_any_of_check(value))
        elif key in _SIZES:
            checks.append(_size_check(key, value))
        elif key == "prefixItems":
            checks.append(_prefix_items_check(value))
        else:
            return None  # a keyword this module does not know: jsonschema decides
    if any(k in schema for k in ("properties", "additionalProperties", "required")):
        checks.append(_object_check(schema))
    if any(c is None for c in checks):
        return None
    return [c for c in checks if c is not None]


def compile_check(schema: Any) -> Check | None:
    """Compile ``schema`` into a predicate that is true exactly when jsonschema's draft 2020-12
    validator reports no error for a JSON value, or ``None`` when the schema uses a keyword
    outside this module's set (``type``, ``enum``, ``const``, ``properties``,
    ``additionalProperties``, ``required``, ``items``, ``prefixItems``, ``anyOf``,
    ``minLength``, ``maxLength``, ``minItems``, ``maxItems``, annotations).

    Args:
        schema: a JSON Schema (object or boolean).

    Returns:
        The predicate, or ``None``.
    """
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, dict):
        return None
    checks = _keyword_checks(schema)
    if checks is None:
        return None
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda x: first(x) and second(x)
    return lambda x: all(c(x) for c in checks)
