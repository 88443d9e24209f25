"""Linear-time matching for the evaluator's patterns.

SillyTavern's patterns (``{{getvar::([^}]+)}}``, ``{{//([\\s\\S]*?)}}``, ...) are matched
here without a backtracking engine: every match attempt looks up "the next ``}``" (or ``}}``,
``::``, line end) in a memo that only moves forward, so a text made of thousands of
unclosed openers costs one pass instead of one pass per opener. Each shape returns exactly
what the JavaScript regex would match at that position (leftmost, then its own
greedy/lazy rule), and ``sub`` replaces matches left to right like ``String.replace`` with
the global flag.
"""

from __future__ import annotations

import re
from collections.abc import Callable

LINE_END = "\n\r\u2028\u2029"  # what JavaScript's "." does not match
Groups = tuple[str, ...]
Shape = Callable[["Finder", int], "tuple[int, Groups] | None"]


class LazyPattern:
    """``re.compile(source, flags)``, made on the first call: a text without macros never
    runs a pass, so a process seeing none compiles none of the evaluator's hundred
    patterns (start-up time)."""

    __slots__ = ("_compiled", "flags", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __call__(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.source, self.flags)
        return compiled


class Finder:
    """``str.find`` with a forward-only memo per needle, and JavaScript line ends."""

    __slots__ = ("_last", "_memo", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._memo: dict[str, tuple[int, int]] = {}
        self._last: dict[str, tuple[int, int, int]] = {}

    def find(self, needle: str, pos: int) -> int:
        """The first index ``>= pos`` of ``needle``, or ``-1``."""
        memo = self._memo.get(needle)
        if memo is not None and memo[0] <= pos and (memo[1] == -1 or memo[1] >= pos):
            return memo[1]
        hit = self.text.find(needle, pos)
        self._memo[needle] = (pos, hit)
        return hit

    def last_before(self, needle: str, pos: int, end: int) -> int:
        """The last index in ``[pos, end)`` where ``needle`` fits, or ``-1`` (memo per ``end``:
        later calls for the same line start further right)."""
        memo = self._last.get(needle)
        if memo is None or memo[0] != end or memo[1] > pos:
            memo = (end, pos, self.text.rfind(needle, pos, end))
            self._last[needle] = memo
        return memo[2] if memo[2] >= pos else -1

    def line_end(self, pos: int) -> int:
        """The first JavaScript line terminator at or after ``pos`` (or ``len(text)``)."""
        ends = [i for i in (self.find(c, pos) for c in LINE_END) if i >= 0]
        return min(ends) if ends else len(self.text)


def until_brace(*, allow_empty: bool = False) -> Shape:
    """``([^}]+)}}`` (``[^}]*`` with ``allow_empty``)."""

    def shape(f: Finder, start: int) -> tuple[int, Groups] | None:
        b = f.find("}", start)
        if b < 0 or (b == start and not allow_empty) or f.text[b + 1 : b + 2] != "}":
            return None
        return b + 2, (f.text[start:b],)

    return shape


def name_value(*, allow_empty: bool) -> Shape:
    """``([^:]+)::([^}]*)}}`` (``[^}]+`` for the value unless ``allow_empty``)."""

    def shape(f: Finder, start: int) -> tuple[int, Groups] | None:
        c = f.find(":", start)
        if c <= start or f.text[c + 1 : c + 2] != ":":
            return None
        hit = until_brace(allow_empty=allow_empty)(f, c + 2)
        return None if hit is None else (hit[0], (f.text[start:c], hit[1][0]))

    return shape


def lazy_to_close(*, one_line: bool, min_len: int) -> Shape:
    """``(.+?)}}`` / ``([\\s\\S]*?)}}``: up to the first ``}}`` (within the line)."""

    def shape(f: Finder, start: int) -> tuple[int, Groups] | None:
        b = f.find("}}", start + min_len)
        if b < 0 or (one_line and f.line_end(start) < b):
            return None
        return b + 2, (f.text[start:b],)

    return shape


def two_lazy(f: Finder, start: int) -> tuple[int, Groups] | None:
    """``(.*?)::(.*?)}}`` within one line."""
    a = f.find("::", start)
    if a < 0 or f.line_end(start) < a:
        return None
    b = f.find("}}", a + 2)
    if b < 0 or f.line_end(a + 2) < b:
        return None
    return b + 2, (f.text[start:a], f.text[a + 2 : b])


def greedy_quoted(f: Finder, start: int) -> tuple[int, Groups] | None:
    """``(.*)"}}``: up to the last ``"}}`` of the line."""
    end = f.line_end(start)
    k = f.last_before('"}}', start, end)
    if k < 0:
        return None
    return k + 3, (f.text[start:k],)


class TooLong(Exception):
    """A pass's result would be longer than the evaluator allows; it is undone."""


def sub(
    text: str,
    opener: re.Pattern[str],
    shape: Shape,
    replace: Callable[[int, Groups], str],
    *,
    limit: int,
) -> str:
    """Replace every match of ``opener`` + ``shape`` left to right.

    Args:
        text: the text.
        opener: the literal start of the pattern (its ``end()`` is where ``shape`` starts).
        shape: the rest of the pattern.
        replace: ``(match_start, groups) -> replacement``; it may raise.
        limit: the longest result allowed.

    Raises:
        TooLong: the result would be longer than ``limit`` (found while building it).
    """
    f = Finder(text)
    out: list[str] = []
    pos = 0
    search = 0
    size = len(text)
    while True:
        m = opener.search(text, search)
        if m is None:
            break
        hit = shape(f, m.end())
        if hit is None:
            search = m.start() + 1
            continue
        out.append(text[pos : m.start()])
        piece = replace(m.start(), hit[1])
        size += len(piece) - (hit[0] - m.start())
        if size > limit:
            raise TooLong(opener.pattern)
        out.append(piece)
        pos = search = hit[0]
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def re_sub(
    pattern: re.Pattern[str], text: str, replace: Callable[[re.Match[str]], str], *, limit: int
) -> str:
    """``pattern.sub(replace, text)`` that stops with ``TooLong`` past ``limit`` characters."""
    size = len(text)

    def one(m: re.Match[str]) -> str:
        nonlocal size
        piece = replace(m)
        size += len(piece) - (m.end() - m.start())
        if size > limit:
            raise TooLong(pattern.pattern)
        return piece

    return pattern.sub(one, text)
