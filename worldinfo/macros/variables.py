"""Local and global variables (spec M6): ``{{setvar}}`` ... ``{{getglobalvar}}``."""

from __future__ import annotations

import math
import re

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo.macros.run import MacroError, Pass, Run
from worldinfo.macros.scan import Groups, LazyPattern, Shape, name_value, sub, until_brace

Store = dict[str, JSONValue]


def _store(run: Run, *, is_global: bool) -> Store:
    return run.global_vars() if is_global else run.local_vars()


def resolve(value: JSONValue) -> JSONValue:
    """A stored value as ``getvar`` returns it: numeric-looking values become numbers (M6.2)."""
    if value is _js.UNDEFINED:
        return ""
    if isinstance(value, str) and _js.trim(value) == "":
        return value
    n = _js.to_number(value)
    return value if math.isnan(n) else _js.number_value(n)


def get(run: Run, name: str, *, is_global: bool) -> JSONValue:
    """``getLocalVariable``/``getGlobalVariable`` of a (trimmed) name."""
    return resolve(_store(run, is_global=is_global).get(_js.trim(name), _js.UNDEFINED))


def _name(name: str) -> str:
    key = _js.trim(name)
    if not key:
        raise MacroError("Variable name cannot be empty or whitespace.")
    return key


def setvar(run: Run, name: str, value: JSONValue, *, is_global: bool) -> None:
    """Store ``value`` verbatim (M6.3); a blank name throws."""
    key = _name(name)
    _store(run, is_global=is_global)[key] = value


def _json_array(value: JSONValue) -> list[JSONValue] | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = _js.parse_json(value)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, list) else None


def addvar(run: Run, name: str, value: JSONValue, *, is_global: bool) -> JSONValue:
    """Add to a variable (M6.4): append to a JSON array, concatenate, or sum; the new value."""
    key = _name(name)
    raw = get(run, key, is_global=is_global)
    current = raw if _js.truthy(raw) else 0
    array = _json_array(current)
    new: JSONValue
    if array is not None:
        array.append(value)
        new = array
        stored: JSONValue = _js.stringify(array)
    elif math.isnan(_js.to_number(value)) or math.isnan(_js.to_number(current)):
        new = stored = _js.to_string(raw if _js.truthy(raw) else "") + _js.to_string(value)
    else:
        new = stored = _js.number_value(_js.to_number(current) + _js.to_number(value))
    _store(run, is_global=is_global)[key] = stored
    return new


def _opener(word: str) -> LazyPattern:
    return LazyPattern(r"\{\{" + word + "::", re.IGNORECASE | re.ASCII)


def _pass(word: str, shape: Shape, kind: str, *, is_global: bool) -> Pass:
    opener = _opener(word)

    def apply(run: Run, text: str) -> str:
        def one(_start: int, g: Groups) -> str:
            if kind == "set":
                setvar(run, g[0], g[1], is_global=is_global)
                return ""
            if kind == "add":
                addvar(run, g[0], g[1], is_global=is_global)
                return ""
            if kind in ("inc", "dec"):
                return _js.to_string(
                    addvar(run, g[0], 1 if kind == "inc" else -1, is_global=is_global)
                )
            return _js.to_string(get(run, g[0], is_global=is_global))

        return sub(text, opener(), shape, one, limit=run.settings.max_output)

    return Pass(source="{{" + word + "::", apply=apply)


def variable_passes() -> list[Pass]:
    """The ten variable passes in evaluation order (M2.3, M6.6)."""
    out: list[Pass] = []
    for is_global, suffix in ((False, "var"), (True, "globalvar")):
        out.append(_pass("set" + suffix, name_value(allow_empty=True), "set", is_global=is_global))
        out.append(_pass("add" + suffix, name_value(allow_empty=False), "add", is_global=is_global))
        for kind in ("inc", "dec", "get"):
            out.append(_pass(kind + suffix, until_brace(), kind, is_global=is_global))
    return out
