"""Batch proofs for the compiled schema check: many values proven valid at C speed.

``schema_quick`` calls its compiled check once per value; for the 5,000 entries of a book
that is 5,000 Python calls, each walking the entry's properties. A ``Batch`` instead proves
a whole list of values valid in a few C-speed passes: the set of their Python types (a
``str`` is valid wherever the schema accepts strings), the values of one property across
all objects at once, the items of all arrays at once. It only ever says "all valid"; when it
cannot prove that it says ``False`` and the caller checks value by value, so no verdict
comes from here.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Callable, Mapping

from worldinfo.interchange import JSONValue

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any

Batch = Callable[[list[JSONValue]], bool]
"""True only when every value of the list is valid (``False``: not proven, check each)."""

# Keywords that never make a value invalid.
ANNOTATIONS = frozenset(
    ("$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated")
    + ("readOnly", "writeOnly")
)
_ABSENT: Any = object()


_PY_TYPES: dict[str, tuple[type, ...]] = {
    # the Python types of parsed JSON whose every value the JSON Schema type accepts
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "null": (type(None),),
    "boolean": (bool,),
    "integer": (int,),  # ``type(True) is bool``; a whole float is valid too, but not proven
    "number": (int, float),
}
_IS_PRESENT = functools.partial(operator.is_not, _ABSENT)


def _accepts_anything(schema: Any) -> bool:
    return schema is True or (isinstance(schema, dict) and schema.keys() <= ANNOTATIONS)


def _proving_types(schema: Any) -> frozenset[type]:
    """Python types every value of which ``schema`` accepts (empty: none proven) when it is a
    ``type``, an ``enum`` or an ``anyOf`` of those (a branch proves what it accepts)."""
    if not isinstance(schema, dict):
        return frozenset()
    rules = {k: v for k, v in schema.items() if k not in ANNOTATIONS}
    if list(rules) == ["type"]:
        names = [rules["type"]] if isinstance(rules["type"], str) else rules["type"]
        if isinstance(names, list) and all(n in _PY_TYPES for n in names):
            return frozenset(itertools.chain.from_iterable(_PY_TYPES[n] for n in names))
    if list(rules) == ["enum"] and isinstance(rules["enum"], list):
        return frozenset((type(None),)) if any(v is None for v in rules["enum"]) else frozenset()
    if list(rules) == ["anyOf"] and isinstance(rules["anyOf"], list):
        return frozenset(itertools.chain.from_iterable(map(_proving_types, rules["anyOf"])))
    return frozenset()


def _objects_batch(schema: Mapping[str, Any]) -> Batch | None:
    """Objects with ``properties`` / ``required`` (any other member allowed): the values of
    one property across all objects at once."""
    props, required = schema.get("properties", {}), schema.get("required", [])
    if not isinstance(props, dict) or not isinstance(required, list):
        return None
    named: list[tuple[str, Batch]] = []
    for key, sub in props.items():
        if _accepts_anything(sub):
            continue
        proof = compile_batch(sub)
        if proof is None:
            return None
        named.append((key, proof))

    def batch(values: list[JSONValue]) -> bool:
        if not set(map(type, values)) <= {dict}:
            return False
        for r in required:
            if not all(map(dict.__contains__, values, itertools.repeat(r))):
                return False
        for key, proof in named:
            got = map(dict.get, values, itertools.repeat(key), itertools.repeat(_ABSENT))
            if not proof(list(filter(_IS_PRESENT, got))):
                return False
        return True

    return batch


def compile_batch(schema: Any) -> Batch | None:
    """A ``Batch`` for ``schema`` (``None``: none, check each value): the set of the values'
    Python types when that proves them (``_proving_types``), objects property by property,
    arrays item by item across all of them.

    Args:
        schema: a JSON Schema.

    Returns:
        The batch proof, or ``None``.
    """
    types = _proving_types(schema)
    if types:
        return lambda values: set(map(type, values)) <= types
    if not isinstance(schema, dict):
        return None
    rules = {k for k in schema if k not in ANNOTATIONS}
    if rules == {"items"}:
        items = compile_batch(schema["items"])
        if items is None:
            return None

        def arrays(values: list[JSONValue]) -> bool:
            # ``items`` says nothing about a value that is not an array
            return items(
                list(itertools.chain.from_iterable(filter(list.__instancecheck__, values)))
            )

        return arrays
    if schema.get("type", "object") == "object" and rules <= {"type", "properties", "required"}:
        return _objects_batch(schema) if rules - {"type"} else None
    return None
