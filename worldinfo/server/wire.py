"""The JSON boundary: request validation against ``openapi.json``, and value conversions.

Request bodies are checked against the schemas in the shipped OpenAPI document (JSON Schema
2020-12, as OpenAPI 3.1 has it), so the document and the checks cannot drift apart. Every
problem is reported with its JSON path, as the importers report theirs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from worldinfo._js import JSONValue, canonical
from worldinfo.importers import Problem
from worldinfo.importers.schema_quick import Check, compile_check
from worldinfo.result import ScanResult
from worldinfo.types import Message, Persona, Settings


class RequestError(Exception):
    """A request body that does not fit its schema; carries every problem with its path."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        first = str(self.problems[0]) if self.problems else "bad request"
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        super().__init__(f"request: {first}{more}")


@cache
def openapi() -> dict[str, Any]:
    """The OpenAPI document shipped with the package."""
    text = resources.files("worldinfo.server").joinpath("openapi.json").read_text("utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc


@cache
def _validator(name: str) -> Draft202012Validator:
    schema = {"$ref": f"#/components/schemas/{name}", "components": openapi()["components"]}
    return Draft202012Validator(schema)


def _inline(schema: Any, components: dict[str, Any], depth: int = 0) -> Any:
    """``schema`` with its ``#/components/schemas/...`` references replaced by their schemas
    (a reference left in place past a depth of 16 makes the compiled check give up)."""
    if isinstance(schema, list):
        return [_inline(s, components, depth) for s in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and len(schema) == 1 and depth < 16:
        name = ref.removeprefix("#/components/schemas/")
        if name in components:
            return _inline(components[name], components, depth + 1)
    return {k: v if k == "enum" else _inline(v, components, depth) for k, v in schema.items()}


@cache
def _quick(name: str) -> Check:
    """A yes/no check of component ``name`` (``importers.schema_quick``): yes means jsonschema
    reports nothing; no (or a schema it cannot compile) leaves the answer to jsonschema."""
    components = openapi()["components"]["schemas"]
    return compile_check(_inline(components[name], components)) or _no


def _no(_: JSONValue) -> bool:
    return False


def _path(parts: Sequence[object]) -> str:
    return "$" + "".join(f".{p}" for p in parts)


def check_body(name: str, body: JSONValue) -> dict[str, JSONValue]:
    """Validate a request body against component schema ``name``.

    Raises:
        RequestError: with every problem, sorted by JSON path.
    """
    if _quick(name)(body):  # valid, as jsonschema would find (a turn's body: 0.3 ms less)
        assert isinstance(body, dict)
        return body
    errors = sorted(_validator(name).iter_errors(body), key=lambda e: list(map(str, e.path)))
    if errors:
        raise RequestError([Problem(_path(list(e.absolute_path)), e.message) for e in errors])
    assert isinstance(body, dict)
    return body


def message_from(obj: Mapping[str, JSONValue]) -> Message:
    """A chat message from its JSON object (already validated)."""
    return Message(
        name=str(obj.get("name", "")),
        mes=str(obj.get("mes", "")),
        is_user=bool(obj.get("is_user", False)),
        is_system=bool(obj.get("is_system", False)),
    )


def message_json(m: Message) -> dict[str, JSONValue]:
    """A chat message as stored and returned."""
    out: dict[str, JSONValue] = {"name": m.name, "mes": m.mes, "is_user": m.is_user}
    if m.is_system:
        out["is_system"] = True
    return out


def settings_from(obj: Mapping[str, JSONValue]) -> Settings:
    """World Info settings from their JSON object (SillyTavern's field names)."""
    return Settings.from_json(obj)


def persona_from(obj: Mapping[str, JSONValue]) -> Persona:
    """The user persona from its JSON object."""
    book = obj.get("book")
    return Persona(
        name=str(obj.get("name", "User")),
        description=str(obj.get("description", "")),
        book=book if isinstance(book, str) else None,
        position=int(str(obj.get("position", 0))),
    )


_PLAIN = (str, int, bool, type(None))


def _value(v: JSONValue) -> JSONValue:
    """``canonical(v)``, without the call for the plain values results mostly hold."""
    return v if type(v) in _PLAIN else canonical(v)


def _strings(items: Sequence[str]) -> list[JSONValue]:
    return [s if type(s) is str else canonical(s) for s in items]


def scan_json(result: ScanResult) -> dict[str, JSONValue]:
    """``result.to_json()``, built field by field in its sorted key order.

    The same object (same keys in the same order, same values; a test holds the two
    equal), without walking the result generically: a scan of a large book activates
    hundreds of entries, and the generic walk cost more than encoding the JSON text.
    """
    if result.error is not None:
        return result.to_json()
    activated: list[JSONValue] = []
    for world, uid in result.activated_keys:  # no entry hash is needed for these
        if type(uid) in _PLAIN and type(world) in _PLAIN:
            activated.append({"uid": uid, "world": world})
        else:
            activated.append(canonical({"world": world, "uid": uid}))
    return {
        "activated": activated,
        "after": _value(result.after),
        "an_after": _strings(result.an_after),
        "an_before": _strings(result.an_before),
        "an_prompt": _value(result.an_prompt),
        "before": _value(result.before),
        "depth": [canonical(g.to_json()) for g in result.depth],
        "em": [
            {"content": _value(x.content), "position": _value(x.position)} for x in result.examples
        ],
        "outlets": {k: _strings(result.outlets[k]) for k in sorted(result.outlets)},
        "scan_loops": _value(result.scan_loops),
        "warnings": _strings(result.warnings),
    }


def canonical_object(value: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """An object with its keys sorted as the CLI's JSON output has them."""
    out = canonical(dict(value))
    assert isinstance(out, dict)
    return out
