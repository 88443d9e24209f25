"""A quick check that a value satisfies one of our schema files, without ``jsonschema``.

Loading ``jsonschema`` and compiling a validator costs more than the rest of reading a
small book (start-up time), yet almost every file is valid. ``conforms`` evaluates the
draft 2020-12 keywords our schema files use, exactly as the specification defines them,
and answers ``True`` or ``False``; it answers ``None`` when it meets anything else (another
keyword, a ``$ref`` that is not local, a value that is not plain JSON). ``schema.py`` skips
``jsonschema`` only on ``True``: the problems of an invalid file always come from
``jsonschema``, so a mistake here could at worst cost time, never a message.
"""

from __future__ import annotations

from collections.abc import Mapping

from worldinfo.interchange import JSONValue

DRAFT = "https://json-schema.org/draft/2020-12/schema"
"""The only dialect evaluated here (every schema file declares it)."""

_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "$defs", "title", "description", "default", "examples"}
)
"""Keywords that never make a value invalid."""

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
}


class _Unsure(Exception):
    """The check met something it does not evaluate: ``jsonschema`` must decide."""


def conforms(schema: JSONValue, value: JSONValue) -> bool | None:
    """Whether ``value`` is valid under ``schema`` (``None``: not decided here).

    Args:
        schema: a parsed schema file (its ``$ref`` point into its own ``$defs``).
        value: a parsed JSON value (dicts, lists, str, int, float, bool, None).
    """
    if not isinstance(schema, dict) or schema.get("$schema") != DRAFT:
        return None
    try:
        return _Check(schema).valid(schema, value, depth=0)
    except (_Unsure, RecursionError):
        return None


def _equal(a: object, b: object) -> bool:
    """JSON equality as JSON Schema defines it (``true`` is not ``1``; ``1`` is ``1.0``)."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            return False
        return all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)) or a.keys() != b.keys():
            return False
        return all(_equal(a[k], b[k]) for k in a)
    raise _Unsure


class _Check:
    """One evaluation against one root schema (``$ref`` resolve against it)."""

    def __init__(self, root: JSONValue) -> None:
        self.root = root

    def valid(self, schema: JSONValue, value: JSONValue, *, depth: int) -> bool:
        """Whether ``value`` satisfies every keyword of ``schema``."""
        if schema is True or schema is False:
            return schema
        if not isinstance(schema, dict) or depth > 64:
            raise _Unsure
        if not isinstance(value, dict | list | str | int | float | bool) and value is not None:
            raise _Unsure
        for keyword, arg in schema.items():
            if keyword not in _ANNOTATIONS and not self._keyword(
                keyword, arg, schema, value, depth
            ):
                return False
        return True

    def _keyword(
        self,
        keyword: str,
        arg: JSONValue,
        schema: Mapping[str, JSONValue],
        value: JSONValue,
        depth: int,
    ) -> bool:
        d = depth + 1
        if keyword == "type":
            names = arg if isinstance(arg, list) else [arg]
            if not all(isinstance(n, str) and n in _TYPES for n in names):
                raise _Unsure
            return any(_TYPES[n](value) for n in names)
        if keyword == "enum":
            if not isinstance(arg, list):
                raise _Unsure
            return any(_equal(value, option) for option in arg)
        if keyword == "const":
            return _equal(value, arg)
        if keyword in ("anyOf", "oneOf"):
            if not isinstance(arg, list) or not arg:
                raise _Unsure
            passed = sum(1 for sub in arg if self.valid(sub, value, depth=d))
            return passed >= 1 if keyword == "anyOf" else passed == 1
        if keyword == "$ref":
            return self.valid(self._resolve(arg), value, depth=d)
        if isinstance(value, dict):
            return self._object(keyword, arg, schema, value, d)
        if isinstance(value, list):
            return self._array(keyword, arg, value, d)
        return self._scalar(keyword, arg, value)

    def _object(
        self,
        keyword: str,
        arg: JSONValue,
        schema: Mapping[str, JSONValue],
        value: dict[str, JSONValue],
        depth: int,
    ) -> bool:
        if keyword == "required":
            if not isinstance(arg, list):
                raise _Unsure
            return all(k in value for k in arg)
        if keyword == "properties":
            if not isinstance(arg, dict):
                raise _Unsure
            return all(self.valid(arg[k], v, depth=depth) for k, v in value.items() if k in arg)
        if keyword == "additionalProperties":
            if "patternProperties" in schema:
                raise _Unsure
            known = schema.get("properties")
            known = known if isinstance(known, dict) else {}
            return all(self.valid(arg, v, depth=depth) for k, v in value.items() if k not in known)
        if keyword in ("items", "minItems", "minLength", "minimum", "maximum"):
            return True  # applies to another type of value
        raise _Unsure

    def _array(self, keyword: str, arg: JSONValue, value: list[JSONValue], depth: int) -> bool:
        if keyword == "items":
            return all(self.valid(arg, v, depth=depth) for v in value)
        if keyword == "minItems":
            return _count(arg) <= len(value)
        if keyword in ("required", "properties", "additionalProperties", "minLength"):
            return True
        if keyword in ("minimum", "maximum"):
            return True
        raise _Unsure

    def _scalar(self, keyword: str, arg: JSONValue, value: JSONValue) -> bool:
        if keyword == "minLength":
            return not isinstance(value, str) or _count(arg) <= len(value)
        if keyword in ("minimum", "maximum"):
            if not isinstance(arg, int | float) or isinstance(arg, bool):
                raise _Unsure
            if not isinstance(value, int | float) or isinstance(value, bool):
                return True
            return value >= arg if keyword == "minimum" else value <= arg
        if keyword in ("required", "properties", "additionalProperties", "items", "minItems"):
            return True
        raise _Unsure

    def _resolve(self, ref: JSONValue) -> JSONValue:
        if not isinstance(ref, str) or not ref.startswith("#/"):
            raise _Unsure
        node: JSONValue = self.root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise _Unsure
            node = node[part]
        return node


def _count(arg: JSONValue) -> int:
    if not isinstance(arg, int) or isinstance(arg, bool):
        raise _Unsure
    return arg
