"""The leaves of the JavaScript regex grammar: literals, classes, escapes, backreferences.

``AtomParser`` holds the state of one parse (flags, group names and numbering, the clipped
length) and emits a ``Frag`` for each atom that contains no subpattern; the grouping,
alternation and quantifier half (``parse``) builds on it. Raises ``JSSyntaxError`` wherever
V8 (Node 20) throws.
"""

from __future__ import annotations

import re

from worldinfo._js import to_utf16_units
from worldinfo._js.regex import literals as lit
from worldinfo._js.regex.chars import (
    ANY,
    CLASS_ESCAPES,
    LINE_TERM,
    WORD_IU,
    CharSet,
    escape_cp,
)
from worldinfo._js.regex.escapes import Cursor
from worldinfo._js.regex.fold import fold_char, fold_closure
from worldinfo._js.regex.names import JSSyntaxError, prescan, read_name
from worldinfo._record import record

_BACKREF = re.compile(r"\\[1-9k]")
NOT_LT = CharSet(ranges=LINE_TERM).emit(negate=True)
"""Any character but a line terminator (``.`` without ``s``)."""
W_IU = CharSet(ranges=WORD_IU).emit()
"""The word characters of ``\\b`` under ``iu``."""
ANY_TEXT = CharSet(ranges=ANY).emit()
"""Any character (``.`` with ``s``)."""


@record(kw_only=False)
class Frag:
    """Emitted ``regex`` text with the facts quantifiers need."""

    text: str
    minw: int
    cost: int
    quantifiable: bool = True
    shape: str = ""
    """``"anystar"``: every match starts with ``[\\s\\S]*``; ``"conj"``: a sequence of positive
    lookaheads on ``"anystar"`` patterns (true at some index implies true at index 0)."""
    facts: lit.Facts = lit.UNKNOWN
    """Needles and line locality of the fragment's matches (``literals``)."""


def _matches_newline(cs: CharSet, *, negate: bool) -> bool:
    """Does ``cs.emit(negate=negate)`` match ``"\\n"``? Read from the ranges (``regex``
    only for property items, which need its Unicode data)."""
    if cs.props:
        import regex  # type: ignore[import-untyped,unused-ignore]

        return regex.match(cs.emit(negate=negate), "\n") is not None
    return any(lo <= 0x0A <= hi for lo, hi in cs.ranges) != negate


def _units(s: str) -> str:
    if s.isascii() or max(s) < "\U00010000":
        return s
    return "".join(map(chr, to_utf16_units(s)))


class AtomParser(Cursor):
    """One parse's state and its atoms; mutable state confined to a single ``translate``."""

    def __init__(self, pattern: str, flags: str) -> None:
        src = pattern if "u" in flags else _units(pattern)
        self.ngroups, names = prescan(src, unicode="u" in flags)
        super().__init__(src, flags=flags, names=names)
        self.m = "m" in flags
        self.s = "s" in flags
        self.group_index = 0
        self.open: list[int] = []
        self.exact_below: int | None = None
        self.has_backrefs = _BACKREF.search(src) is not None
        self.edge = lit.EMPTY if self.m else lit.Facts(exact=frozenset({""}))

    def literal(self, cp: int) -> Frag:
        facts = lit.literal(cp, fold=self.i, unicode=self.u)
        if self.i:
            cp = fold_char(cp, unicode=self.u)
        return Frag(escape_cp(cp), 1, 1, facts=facts)

    def set_frag(self, cs: CharSet, *, negate: bool = False) -> Frag:
        if self.i:
            cs = fold_closure(cs, unicode=self.u)
        text = cs.emit(negate=negate)
        small = None if negate or cs.props else cs.ranges
        facts = lit.char_class(small, fold=self.i, unicode=self.u)
        local = not _matches_newline(cs, negate=negate)
        return Frag(text, 1, 1, facts=lit.Facts(exact=facts.exact, need=facts.need, local=local))

    def backref(self, n: int) -> Frag:
        if n in self.open:
            return Frag("", 0, 1, facts=lit.EMPTY)
        return Frag(f"(?({n})(?:\\{n}))", 0, 1, facts=lit.Facts(local=True))

    def atom_escape(self) -> Frag:
        c = self.peek(1)
        if c == "":
            raise JSSyntaxError("\\ at end of pattern")
        if c in CLASS_ESCAPES:
            self.pos += 2
            return self.set_frag(self.class_escape(c))
        if c in ("p", "P") and self.u:
            return self.set_frag(self.property())
        if c == "k" and (self.u or self.names):
            if self.peek(2) != "<":
                raise JSSyntaxError("Invalid named reference")
            name, self.pos = read_name(self.src, self.pos + 3, unicode=self.u)
            if name not in self.names:
                raise JSSyntaxError("Invalid named capture referenced")
            return self.backref(self.names[name])
        if c in "123456789":
            m = re.compile(r"[0-9]+").match(self.src, self.pos + 1)
            assert m is not None
            n = int(m.group(0))
            if n <= self.ngroups:
                self.pos = m.end()
                return self.backref(n)
            if self.u:
                raise JSSyntaxError("Invalid escape")
            if c in "89":
                self.pos += 2
                return self.literal(ord(c))
            return self.literal(self.octal())
        if c == "0":
            if self.peek(2).isdigit() and self.peek(2).isascii():
                if self.u:
                    raise JSSyntaxError("Invalid decimal escape")
                return self.literal(self.octal())
            self.pos += 2
            return self.literal(0)
        return self.literal(self.char_escape(in_class=False))

    def char_class(self) -> Frag:
        cs, negate = self.class_contents()
        return self.set_frag(cs, negate=negate)
