"""Which translations ``regex.compile`` is sure to accept, decided without importing ``regex``.

``regex_key`` compiles a key when it is built, and a key ``regex`` refuses is plain text.
Importing ``regex`` costs a scan's start-up more than anything else, so a key whose
translation lies in the small grammar below is compiled on its first test instead (a scan
whose text holds none of its needles never compiles it): ``regex`` V0 accepts every pattern
of that grammar (``tests/test_regex_sure.py`` compiles generated ones), so deferring
changes no key from regex to plain. Anything else (backreferences, properties, a long or
deeply nested pattern, a large count, a count over a group holding a count) is compiled at
once, as before.

The grammar is the part of the translator's output common keys use::

    pattern := alt ("|" alt)*            alt := item*
    item    := "(?:" pattern ")" quant? | OPEN pattern ")" | class | literal | assertion
    OPEN    := "(?=" | "(?!" | "(?<=" | "(?<!" | "(?a:" | "(?P<g" digits ">"
    quant   := ("*" | "+" | "?" | "{" n "}" | "{" n ",}" | "{" n "," m "}") "?"?   (n <= m;
               a "{...}" only over a group that holds none)
    class   := "[" "^"? (char | char "-" char)+ "]" | "[\\s\\S]"   (ranges in order)
    literal := char                      char := [0-9A-Za-z] | "\\u" hex{4} | "\\U" hex{8}
    assertion := "\\A" | "\\Z" | "\\b" | "\\B"
"""

from __future__ import annotations

import re

MAX_LENGTH = 4_000
"""Longest translation deferred (``regex``'s parser is not bounded by us beyond this)."""
MAX_DEPTH = 40
"""Deepest group nesting deferred (``regex`` parses groups recursively)."""
MAX_COUNT = 1_000
"""Largest count of a ``{n,m}`` quantifier deferred."""

_OPEN = re.compile(r"\(\?(?::|=|!|<=|<!|a:|P<g[0-9]+>)")
_CHAR = re.compile(r"[0-9A-Za-z]|\\u([0-9a-f]{4})|\\U(0010[0-9a-f]{4}|000[0-9a-f]{5})")
_QUANT = re.compile(r"(?:[*+?]|\{([0-9]{1,4})(?:(,)([0-9]{0,4}))?\})\??")
_ASSERT = ("\\A", "\\Z", "\\b", "\\B")
_EVERYTHING = "[\\s\\S]"


def _char(text: str, pos: int) -> tuple[int, int] | None:
    """The code point of the ``char`` at ``pos`` and the position after it."""
    m = _CHAR.match(text, pos)
    if m is None:
        return None
    digits = m.group(1) or m.group(2)
    return (int(digits, 16) if digits else ord(m.group(0))), m.end()


def _class_end(text: str, pos: int) -> int | None:
    """The position after the class starting at ``pos`` (a ``[``), if it is in the grammar."""
    if text.startswith(_EVERYTHING, pos):
        return pos + len(_EVERYTHING)
    pos += 2 if text.startswith("[^", pos) else 1
    items = 0
    while not text.startswith("]", pos):
        lo = _char(text, pos)
        if lo is None:
            return None
        pos = lo[1]
        if text.startswith("-", pos) and not text.startswith("-]", pos):
            hi = _char(text, pos + 1)
            if hi is None or hi[0] < lo[0]:
                return None
            pos = hi[1]
        items += 1
    return pos + 1 if items else None


def _quant_end(text: str, pos: int, *, counted_inside: bool) -> tuple[int, bool]:
    """The position after a quantifier at ``pos`` (``pos`` itself when there is none), or
    -1 for a count outside the grammar; and whether it is a count (``{...}``). A count over
    a group that holds a count is outside the grammar: ``regex`` V0 can crash compiling
    nested counts (``(?:(?:a|){687}?){587,870}?`` segfaults it)."""
    m = _QUANT.match(text, pos)
    if m is None:
        return pos, False
    if m.group(1) is not None:
        lo, hi = int(m.group(1)), m.group(3)
        if counted_inside or lo > MAX_COUNT or (hi and not lo <= int(hi) <= MAX_COUNT):
            return -1, True
        return m.end(), True
    return m.end(), False


def compiles_surely(text: str) -> bool:
    """Is ``text`` (a translation) in the grammar above, so that ``regex`` compiles it?"""
    if len(text) > MAX_LENGTH:
        return False
    opened: list[bool] = []  # per open group: is it "(?:" (the only one a quantifier follows)
    counted: list[bool] = [False]  # per open group, and the whole: does it hold a count
    pos, end = 0, len(text)
    while pos < end:
        c = text[pos]
        if c == "(":
            m = _OPEN.match(text, pos)
            if m is None or len(opened) >= MAX_DEPTH:
                return False
            opened.append(m.group(0) == "(?:")
            counted.append(False)
            pos = m.end()
        elif c == ")":
            if not opened:
                return False
            pos += 1
            inside = counted.pop()
            if opened.pop():
                pos, count = _quant_end(text, pos, counted_inside=inside)
                if pos < 0:
                    return False
                inside = inside or count
            counted[-1] = counted[-1] or inside
        elif c == "|":
            pos += 1
        elif c == "[":
            after = _class_end(text, pos)
            if after is None:
                return False
            pos = after
        elif text.startswith(_ASSERT, pos):
            pos += 2
        else:
            char = _char(text, pos)
            if char is None:
                return False
            pos = char[1]
    return not opened
