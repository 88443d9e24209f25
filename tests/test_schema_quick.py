"""``importers.schema_quick``: the compiled yes/no check agrees with jsonschema, both ways.

Values are drawn from each import schema's own property names and from the values its
``type``/``enum``/``const`` rules sit on the edge of (``0`` / ``0.0`` / ``False`` / ``1.0`` /
``None``), so both verdicts come up often. Every corpus file then imports with the same
problems whether or not the check runs first.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared import corpus_file, corpus_names

from worldinfo import importers
from worldinfo.importers import schema as schema_module
from worldinfo.importers.schema import schema_names, validator
from worldinfo.importers.schema_batch import compile_batch
from worldinfo.importers.schema_quick import compile_check

IMPORT_SCHEMAS = [n for n in schema_names() if n != "authortest"]


def _names(schema: Any, out: set[str]) -> set[str]:
    """Every property name and string constant in ``schema``."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                out.update(value)
            if key in ("enum", "const"):
                out.update(
                    v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)
                )
            _names(value, out)
    elif isinstance(schema, list):
        for value in schema:
            _names(value, out)
    return out


def _values(names: list[str]) -> st.SearchStrategy[Any]:
    scalars = st.sampled_from([None, True, False, 0, 1, 0.0, -0.0, 1.0, 2.5, -3, 10**20, "", "a"])
    scalars = scalars | st.sampled_from(names)
    keys = st.sampled_from(names) | st.text(max_size=2)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=6),
        max_leaves=30,
    )


@pytest.mark.parametrize("name", IMPORT_SCHEMAS)
def test_every_import_schema_compiles(name: str) -> None:
    assert compile_check(validator(name).schema) is not None


def test_unknown_keywords_leave_it_to_jsonschema() -> None:
    assert compile_check(validator("authortest").schema) is None  # $ref, oneOf, minimum
    assert compile_check({"type": "string", "pattern": "a"}) is None
    assert compile_check({"type": "decimal"}) is None
    assert compile_check({"items": {"type": "string"}, "prefixItems": []}) is None


@pytest.mark.parametrize("name", IMPORT_SCHEMAS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_quick_verdict_is_jsonschemas(name: str, data: st.DataObject) -> None:
    schema = validator(name).schema
    check = compile_check(schema)
    assert check is not None
    value = data.draw(_values(sorted(_names(schema, {"x"}))))
    assert check(value) == (not any(validator(name).iter_errors(value)))


@pytest.mark.parametrize(
    ("schema", "value", "valid"),
    [
        ({"enum": [None, False, 0]}, 0.0, True),
        ({"enum": [None, False, 0]}, True, False),
        ({"enum": [0]}, False, False),
        ({"const": 1}, True, False),
        ({"const": "memory"}, "memory", True),
        ({"type": "integer"}, 2.0, True),
        ({"type": "integer"}, True, False),
        ({"type": "number"}, False, False),
        ({"type": ["integer", "null"]}, None, True),
        ({"required": ["entries"]}, [], True),
        ({"additionalProperties": False, "properties": {"a": {}}}, {"a": 1, "b": 2}, False),
        ({"items": {"anyOf": [{"type": "string"}, {"enum": [0]}]}}, ["a", 0, 0.0], True),
        ({"items": {"anyOf": [{"type": "string"}, {"enum": [0]}]}}, ["a", False], False),
    ],
)
def test_edges_agree(schema: dict[str, Any], value: Any, valid: bool) -> None:
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    check = compile_check(schema)
    assert check is not None
    assert check(value) is valid
    assert (not any(Draft202012Validator(schema).iter_errors(value))) is valid


@pytest.mark.parametrize("rel", corpus_names())
def test_corpus_problems_do_not_depend_on_the_check(
    rel: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = corpus_file(rel)
    quick = list(importers.iter_problems(path))
    monkeypatch.setattr(schema_module, "quick_check", lambda _name: None)
    assert list(importers.iter_problems(path)) == quick


def _subschemas(schema: Any) -> list[Any]:
    """``schema`` and every schema inside it (the dict values that are schemas)."""
    out = [schema]
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for sub in value.values():
                    out += _subschemas(sub)
            elif key in ("items", "additionalProperties"):
                out += _subschemas(value)
            elif key == "anyOf" and isinstance(value, list):
                for sub in value:
                    out += _subschemas(sub)
    return out


@functools.cache
def _compiled(name: str) -> tuple[list[str], list[tuple[Any, Any]]]:
    """The property names of schema ``name`` and the (batch, one-by-one) checks of every
    schema inside it that compiles both ways: compiled once, not once per example."""
    schema = validator(name).schema
    pairs = [(compile_batch(sub), compile_check(sub)) for sub in _subschemas(schema)]
    names = sorted(_names(schema, {"x"}))
    return names, [(b, c) for b, c in pairs if b is not None and c is not None]


@pytest.mark.parametrize("name", IMPORT_SCHEMAS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_batch_proves_only_lists_the_check_passes_one_by_one(
    name: str, data: st.DataObject
) -> None:
    names, pairs = _compiled(name)
    batch, check = data.draw(st.sampled_from(pairs))  # one inner schema per example
    values = data.draw(st.lists(_values(names), max_size=5))
    if batch(values):
        assert all(map(check, values))


def test_a_world_files_entries_are_proven_at_once_or_checked_one_by_one() -> None:
    entry = validator("st-world").schema["properties"]["entries"]["additionalProperties"]
    batch = compile_batch(entry)
    assert batch is not None
    good: list[Any] = [
        {"uid": 0, "key": ["a", None], "content": "x", "position": 1},
        {"uid": 1, "key": [], "keysecondary": ["b"], "content": None, "group": ""},
        {"uid": 2, "comment": 5, "position": None},
    ]
    assert batch(good)
    bad: list[Any] = [{"content": 5}, {"key": ["a", 1]}, {"position": "1"}, {"group": []}]
    for wrong in bad:
        assert not batch([*good, wrong])
    assert not batch([*good, {"position": 2.0}])  # valid (a whole number), but not proven
    check = compile_check(validator("st-world").schema)
    assert check is not None
    assert check({"entries": {str(i): e for i, e in enumerate(good)}})
    assert check({"entries": {"0": {"position": 2.0}}})  # the one-by-one check decides
    assert not check({"entries": {"0": good[0], "1": {"key": [1]}}})
    assert check({"entries": good}) and not check({"entries": [*good, {"content": []}]})
