"""JavaScript strings: UTF-16 lengths, ``trim``, ``toLowerCase``, whitespace splits."""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import repeat

JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_WS_CLASS = "[" + "".join(f"\\u{ord(c):04x}" for c in JS_WHITESPACE) + "]"
_WS_RUN = re.compile(JS_WS_CLASS + "+")


def utf16_len(s: str) -> int:
    """Return the JavaScript ``length`` of ``s`` (UTF-16 code units)."""
    if s.isascii():
        return len(s)
    return len(s.encode("utf-16-le", "surrogatepass")) >> 1  # C speed; a lone surrogate is one unit


def to_utf16_units(s: str) -> list[int]:
    """Return the UTF-16 code units of ``s`` (lone surrogates pass through as themselves)."""
    units: list[int] = []
    for c in s:
        o = ord(c)
        if o > 0xFFFF:
            o -= 0x10000
            units.append(0xD800 + (o >> 10))
            units.append(0xDC00 + (o & 0x3FF))
        else:
            units.append(o)
    return units


def trim(s: str) -> str:
    """``String.prototype.trim``: strip the JavaScript whitespace set."""
    return s.strip(JS_WHITESPACE)


def lower(s: str) -> str:
    """``String.prototype.toLowerCase`` (full Unicode lower-casing, as Python's)."""
    return s.lower()


def trim_all(texts: Iterable[str]) -> list[str]:
    """``trim`` of each text, in one C loop (building a plan trims every key)."""
    return list(map(str.strip, texts, repeat(JS_WHITESPACE)))


def lower_all(texts: Iterable[str]) -> list[str]:
    """``lower`` of each text, in one C loop."""
    return list(map(str.lower, texts))


def split_ws(s: str) -> list[str]:
    """``s.split(/\\s+/)`` with JavaScript whitespace."""
    return _WS_RUN.split(s)


def split_group(s: str) -> list[str]:
    """``s.split(/,\\s*/)``: group names of an entry's ``group`` string."""
    return re.split("," + JS_WS_CLASS + "*", s)


def escape_regex(s: str) -> str:
    """SillyTavern's ``escapeRegex``: backslash the characters ``/-\\^$*+?.()|[]{}``."""
    return re.sub(r"[/\-\\^$*+?.()|\[\]{}]", lambda m: "\\" + m.group(0), s)
