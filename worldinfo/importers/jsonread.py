"""JSON text to values with JavaScript key order, bounded nesting and clean errors."""

from __future__ import annotations

import json
import re

from worldinfo._js import JSONValue, reorder
from worldinfo.importers.errors import reject

# A string token, also an unterminated one (so the scan stays linear on hostile input).
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*(?:"|\Z)', re.DOTALL)
_BRACKETS = re.compile(rb"[\[\]{}]")


def check_depth(raw: bytes, *, max_depth: int, where: str = "$") -> None:
    """Refuse JSON text nested deeper than ``max_depth`` (checked before parsing).

    Raises:
        Reject: when the nesting is deeper than allowed.
    """
    if raw.count(b"[") + raw.count(b"{") <= max_depth:
        return
    depth = 0
    for m in _BRACKETS.finditer(_STRING.sub(b"", raw)):
        if m.group(0) in b"[{":
            depth += 1
            if depth > max_depth:
                raise reject(where, f"JSON nested deeper than {max_depth} levels; refused")
        else:
            depth -= 1


def _no_constants(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


def decode_text(raw: bytes, *, where: str = "$") -> str:
    """Decode UTF-8 text (a leading BOM is dropped, as browsers do).

    Raises:
        Reject: when the bytes are not UTF-8.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise reject(where, f"not UTF-8 text (byte {exc.start})") from None
    return text.removeprefix("\ufeff")


def load_json(raw: bytes | str, *, max_depth: int, where: str = "$") -> JSONValue:
    """``JSON.parse`` of ``raw`` with a nesting bound; JavaScript key order.

    Args:
        raw: JSON text (UTF-8 bytes or str).
        max_depth: deepest nesting accepted.
        where: JSON path used in problem messages.

    Raises:
        Reject: on invalid or too deeply nested JSON.
    """
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    check_depth(data, max_depth=max_depth, where=where)
    text = raw if isinstance(raw, str) else decode_text(raw, where=where)
    text = text.removeprefix("\ufeff")
    try:
        # Same result as worldinfo._js.parse_json (JavaScript key order via reorder), plus
        # JSON.parse's refusal of the NaN / Infinity literals Python would accept.
        return reorder(json.loads(text, parse_constant=_no_constants))
    except json.JSONDecodeError as exc:
        msg = f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        if exc.pos >= len(text.rstrip()):
            msg = f"JSON ends unexpectedly at line {exc.lineno} (truncated file?)"
        raise reject(where, msg) from None
    except (ValueError, RecursionError) as exc:
        raise reject(where, f"invalid JSON: {exc}") from None
