"""``importers.schema_quick.compile_check`` (through ``conforms`` below) against ``jsonschema`` on the same values.

Reading a valid file skips ``jsonschema`` when ``conforms`` says ``True`` (start-up time), so
it must never say ``True`` where ``jsonschema`` finds a problem; and it should decide (not
answer ``None``) for the files people share, or the shortcut would never be taken. The
values are the corpus files of every format (``tests/data/corpus``), and the same values
with one member replaced by arbitrary JSON (hypothesis).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo.importers.detect import sniff
from worldinfo.importers.errors import Reject
from worldinfo.importers.limits import DEFAULT_LIMITS
from worldinfo.importers.schema import schema, schema_names, validator
from worldinfo.importers.schema_quick import compile_check


def conforms(schema_value: Any, value: Any) -> bool | None:
    """The compiled check's answer for ``value``, or ``None`` when it cannot compile."""
    check = compile_check(schema_value)
    return None if check is None else check(value)


CORPUS = Path(__file__).parent / "data" / "corpus"
EXAMPLES = Path(__file__).parent.parent / "worldinfo" / "examples"


def _documents() -> list[tuple[str, str, Any]]:
    """``(id, schema name, value)`` for every corpus file and the books inside cards."""
    out: list[tuple[str, str, Any]] = []
    files = sorted(p for p in [*CORPUS.rglob("*"), *EXAMPLES.glob("*.json")] if p.is_file())
    for path in files:
        if path.suffix == ".md":
            continue
        try:
            s = sniff(
                path.read_bytes(), file_name=path.name, limits=DEFAULT_LIMITS, st_compatible=False
            )
        except Reject:
            continue
        if s.format not in schema_names():
            continue
        out.append((path.name, s.format, s.obj))
        data = s.obj.get("data") if isinstance(s.obj, dict) else None
        book = (
            (data if isinstance(data, dict) else s.obj).get("character_book")
            if isinstance(s.obj, dict)
            else None
        )
        if isinstance(book, dict):
            out.append((f"{path.name}/character_book", "character-book", book))
    return out


DOCUMENTS = _documents()


def _valid(name: str, value: Any) -> bool:
    return not list(validator(name).iter_errors(value))


def test_the_corpus_covers_several_formats() -> None:
    assert len({name for _, name, _ in DOCUMENTS}) >= 5


@pytest.mark.parametrize(
    ("name", "value"), [d[1:] for d in DOCUMENTS], ids=[d[0] for d in DOCUMENTS]
)
def test_decides_like_jsonschema_on_shared_files(name: str, value: Any) -> None:
    assert conforms(schema(name), value) is _valid(name, value)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-2, 2)
    | st.sampled_from(["", "x", "0"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["key", "content", "uid", "entries", "name", "x"]), inner, max_size=3
        )
    ),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_never_accepts_what_jsonschema_refuses(data: st.DataObject) -> None:
    _, name, original = data.draw(st.sampled_from(DOCUMENTS))
    value = copy.deepcopy(original)
    path = data.draw(st.sampled_from(_paths(value)[:400]))
    replacement = data.draw(JSON)
    if not path:
        value = replacement
    else:
        node = value
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = replacement
    decided = conforms(schema(name), value)
    if decided is not None:
        assert decided is _valid(name, value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1.0, True), (1.5, False), (True, False), ("1", False), (None, False)],
)
def test_integer_is_json_schemas_integer(value: Any, expected: bool) -> None:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "integer"}
    assert conforms(schema, value) is expected


def test_unknown_keywords_are_left_to_jsonschema() -> None:
    draft = "https://json-schema.org/draft/2020-12/schema"
    assert conforms({"$schema": draft, "pattern": "^a"}, "a") is None
    assert conforms({"$schema": draft, "$ref": "other.json"}, 1) is None
    assert conforms({"$schema": draft, "enum": [0]}, value=False) is False
    assert conforms({"$schema": draft, "enum": [[1, {"a": None}]]}, [1.0, {"a": None}]) in (
        True,
        None,
    )
