"""JSON text to values with JavaScript key order, bounded size and clean errors."""

from __future__ import annotations

import json

from worldinfo.importers.errors import reject
from worldinfo.importers.limits import how_to_raise
from worldinfo.interchange import (
    JSONBounds,
    JSONLimitError,
    JSONValue,
    check_json_bounds,
    parse_json,
)


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


def load_json(raw: bytes | str, *, bounds: JSONBounds, where: str = "$") -> JSONValue:
    """``JSON.parse`` of ``raw`` within ``bounds`` (checked first); JavaScript key order.

    Args:
        raw: JSON text (UTF-8 bytes or str).
        bounds: depth, container, item and string limits (``Limits.json_bounds``).
        where: JSON path used in problem messages.

    Raises:
        Reject: on invalid JSON, or JSON over a bound (the message names the limit).
    """
    try:
        check_json_bounds(raw, bounds)
    except JSONLimitError as exc:
        raise reject(where, f"{exc} ({how_to_raise(exc.limit)})") from None
    text = raw if isinstance(raw, str) else decode_text(raw, where=where)
    text = text.removeprefix("\ufeff")
    try:
        return parse_json(text, bounds=None)  # checked above, before decoding
    except json.JSONDecodeError as exc:
        msg = f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        if exc.pos >= len(text.rstrip()):
            msg = f"JSON ends unexpectedly at line {exc.lineno} (truncated file?)"
        raise reject(where, msg) from None
    except (ValueError, RecursionError) as exc:
        raise reject(where, f"invalid JSON: {exc}") from None
