"""A request body's compiled check (``importers.schema_quick`` over the OpenAPI schemas, their
references inlined) accepts only what jsonschema accepts, and does accept the bodies a chat
sends every turn (else it would be a slower no-op)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("jsonschema")

from worldinfo.importers.schema_quick import compile_check
from worldinfo.server import wire

NAMES = [
    *("Message", "Persona", "MemoryPlacement", "GenerateRequest", "ExplainRequest"),
    *("MessagesRequest", "ResetRequest", "SessionCreate", "QueryRequest", "IngestRequest"),
    *("MemoryCreate", "ChatMetadata"),
]


def _keys(name: str) -> list[str]:
    schema = wire.openapi()["components"]["schemas"][name]
    return sorted(schema.get("properties", {}))


MESSAGE_KEYS = ["name", "mes", "is_user", "is_system", "extra"]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "normal", "swipe", "quiet", "nope", "x" * 1000, "x" * 1001])
)
TEXT = st.sampled_from(["", "a", "x" * 1000, "x" * 1001])
MESSAGES = st.dictionaries(st.sampled_from(MESSAGE_KEYS), SCALARS, max_size=5) | (
    st.fixed_dictionaries(
        {"mes": TEXT},
        optional={"name": TEXT, "is_user": st.booleans(), "is_system": st.booleans() | SCALARS},
    )
)
VALUES = (
    SCALARS
    | st.lists(MESSAGES, max_size=3)
    | st.lists(st.lists(SCALARS, max_size=3), max_size=2)
    | st.lists(SCALARS, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "text", "mes"]), SCALARS, max_size=2)
)


def _mostly(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    # one in four wrong (not ``one_of``: it flattens the unions inside ``bad`` into branches)
    return st.integers(0, 3).flatmap(lambda i: bad if i == 0 else good)


def _near(schema: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values mostly valid under ``schema``, each part sometimes wrong (so both answers of
    the fast check are drawn, and its limits are tried at their edges)."""
    ref = schema.get("$ref")
    if isinstance(ref, str) and depth < 4:
        name = ref.rsplit("/", 1)[-1]
        return _near(wire.openapi()["components"]["schemas"][name], depth + 1)
    kind = schema.get("type")
    if "enum" in schema:
        return _mostly(st.sampled_from(schema["enum"]), SCALARS)
    if kind == "boolean":
        return _mostly(st.booleans(), SCALARS)
    if kind == "string":
        return _mostly(TEXT, SCALARS)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return _mostly(st.lists(_near(schema["items"], depth + 1), max_size=3), VALUES)
    if kind == "object" and depth < 4:
        props = schema.get("properties") or {}
        parts = {k: _near(v, depth + 1) for k, v in props.items()}
        required = [k for k in schema.get("required", []) if k in parts]
        some = st.lists(st.sampled_from([*sorted(parts), "unknown"]), max_size=2, unique=True)
        return (
            some.flatmap(
                lambda ks: st.fixed_dictionaries(
                    {k: parts.get(k, SCALARS) for k in {*required, *ks}}
                )
            )
            | VALUES
        )
    return VALUES


def _valid(name: str, body: Any) -> bool:
    return not list(wire._validator(name).iter_errors(body))


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_what_the_fast_check_accepts_the_schema_accepts(name: str, data: st.DataObject) -> None:
    keys = st.sampled_from([*_keys(name), "unknown"])
    near = _near(wire.openapi()["components"]["schemas"][name])
    body = data.draw(near | st.dictionaries(keys, VALUES, max_size=4))
    if wire._quick(name)(body):
        assert _valid(name, body), body


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"append": [{"name": "User", "is_user": True, "mes": "The ferry docks."}]},
        {"append": [{"mes": "a"}, {"name": "Archivist", "mes": "b", "is_system": False}]},
        {"type": "swipe", "dry_run": True, "trace": False, "entries": True},
        {"type": "quiet", "quiet_prompt": "Summarise.", "force_activate": []},
    ],
)
def test_a_turns_body_takes_the_fast_check(body: dict[str, Any]) -> None:
    assert wire._quick("GenerateRequest")(body)
    assert wire.check_body("GenerateRequest", body) is body


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"append": [{"name": "User"}]}, "$.append.0"),
        ({"append": [{"mes": "a", "name": "x" * 1001}]}, "$.append.0.name"),
        ({"type": "sideways"}, "$.type"),
        ({"force_activate": [["w"]]}, "$.force_activate.0"),
        ({"dry_run": 1}, "$.dry_run"),
        ({"append": [{"mes": "a"}] * 1001}, "$.append"),  # maxItems
    ],
)
def test_a_body_the_fast_check_refuses_gets_the_schemas_errors(
    body: dict[str, Any], path: str
) -> None:
    assert not wire._quick("GenerateRequest")(body)
    with pytest.raises(wire.RequestError) as caught:
        wire.check_body("GenerateRequest", body)
    assert caught.value.problems[0].json_path == path


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}},
         ["a", 1]),  # items after the prefix only: left to jsonschema
        ({"type": "string", "pattern": "^a$"}, "a"),  # a keyword outside the set
        ({"type": "array", "items": {"type": "string"}, "maxItems": -1}, []),
    ],
)  # fmt: skip
def test_a_schema_the_compiled_check_does_not_know_is_left_to_jsonschema(
    schema: dict[str, Any], value: Any
) -> None:
    assert compile_check(schema) is None
