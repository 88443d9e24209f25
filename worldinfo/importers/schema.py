"""JSON Schema validation (draft 2020-12), one schema file per input format."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator

from worldinfo.importers.errors import Problem
from worldinfo.importers.schema_quick import Check, compile_check
from worldinfo.interchange import JSONValue, stringify

TYPE_CHECKING = False  # as typing.TYPE_CHECKING
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


def _schema_folder() -> str:
    """``schema_dir`` as text (``os.path``: a scan need not import ``pathlib``)."""
    here = os.path.dirname(os.path.realpath(__file__))
    for candidate in (
        os.path.join(here, "schemas"),
        os.path.join(os.path.dirname(os.path.dirname(here)), "schemas"),
    ):
        if os.path.isfile(os.path.join(candidate, "st-world.schema.json")):
            return candidate
    raise FileNotFoundError("importers: schema files not found")


def schema_dir() -> Path:
    """Where the schema files are: next to the package (wheel) or at the repository root."""
    from pathlib import Path

    return Path(_schema_folder())


def schema_names() -> tuple[str, ...]:
    """Every format that has a schema (file names without ``.schema.json``)."""
    return tuple(sorted(p.name[: -len(".schema.json")] for p in schema_dir().glob("*.schema.json")))


@functools.cache
def schema(name: str) -> Any:
    """The schema of format ``name`` (e.g. ``st-world``), as read from its file."""
    with open(os.path.join(_schema_folder(), f"{name}.schema.json"), encoding="utf-8") as fh:
        return json.loads(fh.read())


@functools.cache
def validator(name: str) -> Any:
    """The compiled validator for format ``name`` (e.g. ``st-world``)."""
    # jsonschema is imported only when a document is judged by it: a valid document never
    # is (``quick_check``), and the import costs more than reading most files.
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    Draft202012Validator.check_schema(schema(name))
    return Draft202012Validator(schema(name))


def _path(base: str, parts: object) -> str:
    out = base
    for p in parts:  # type: ignore[attr-defined]
        out += f".{p}"
    return out


@functools.cache
def quick_check(name: str) -> Check | None:
    """The compiled yes/no check of format ``name`` (``None``: jsonschema always runs)."""
    return compile_check(schema(name))


def iter_schema_problems(name: str, value: JSONValue, *, where: str = "$") -> Iterator[Problem]:
    """Yield one ``Problem`` per schema violation of ``value`` against format ``name``.

    A value the compiled check passes has none (jsonschema would report nothing); any other
    value goes through jsonschema, which writes the problems.

    Args:
        name: the schema (format) name.
        value: the parsed JSON value.
        where: JSON path of ``value`` inside the file.
    """
    check = quick_check(name)
    if check is not None and check(value):
        return
    errors = sorted(validator(name).iter_errors(value), key=lambda e: list(map(str, e.path)))
    for err in errors:
        message = err.message
        described = err.schema.get("description") if isinstance(err.schema, dict) else None
        if err.validator in ("anyOf", "type") and isinstance(described, str):
            message = f"{stringify(err.instance)[:60]} is not allowed here: {described}"
        yield Problem(_path(where, err.absolute_path), message[:300])
