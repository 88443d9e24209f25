"""Lint checks for values that make SillyTavern's scan stop with a ``TypeError`` (WI110-WI112).

SillyTavern calls string methods on an entry's ``content`` (every entry, when the books load:
``content.startsWith``), on each key it matches (``includes``) and on ``group``
(``group.split``). A falsy value is read as empty text; any other non-string stops the whole
scan, so no entry of any book activates. These findings say which entry and field, with the
message SillyTavern would show.
"""

from __future__ import annotations

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo.lint.model import Finding, Located, is_enabled

JS_ERRORS = {
    "WI110": "content.startsWith is not a function",
    "WI111": "content.includes is not a function",
    "WI112": "item.group.split is not a function",
}
"""The error SillyTavern stops with, per code (what ``ScanResult.error`` holds)."""


def _stops(value: JSONValue) -> bool:
    return _js.truthy(value) and not isinstance(value, str)


def _what(value: JSONValue) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "true" if value is True else "a number"


def _finding(e: Located, code: str, *, where: str, value: JSONValue) -> Finding:
    shown = _js.stringify(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return e.finding(
        code,
        where,
        message=f"{where.split('.')[0]} is {_what(value)} ({shown}), not text: SillyTavern's "
        f"scan stops here with {JS_ERRORS[code]!r} and no entry of any book activates",
    )


def check_entry(e: Located) -> list[Finding]:
    """The scan-stopping values of one entry (``content`` even when it is disabled)."""
    out = []
    content = e.get("content")
    if _stops(content):
        out.append(_finding(e, "WI110", where="content", value=content))
    if not is_enabled(e):
        return out
    for field in ("key", "keysecondary"):
        keys = e.get(field)
        if isinstance(keys, list):
            out += [
                _finding(e, "WI111", where=f"{field}.{i}", value=k)
                for i, k in enumerate(keys)
                if _stops(k)
            ]
    group = e.get("group")
    if _stops(group):
        out.append(_finding(e, "WI112", where="group", value=group))
    return out
