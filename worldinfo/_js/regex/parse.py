"""Translate a JavaScript pattern (ECMAScript grammar, Annex B without ``u``) to ``regex`` syntax.

A recursive-descent parser that emits ``regex`` V0 text as it goes. It raises
``JSSyntaxError`` wherever V8 (Node 20) throws, and emits only simple constructs: explicit
classes, explicit anchors and boundaries, conditional backreferences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex  # type: ignore[import-untyped,unused-ignore]

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

_BACKREF = re.compile(r"\\[1-9k]")
COUNT_BUDGET = 50_000
"""Most atom copies one quantifier may ask ``regex`` to spell out (it unrolls counts)."""
TOTAL_BUDGET = 1_000_000
"""Most atom copies a whole pattern may spell out (about a quarter second of compiling)."""

_QUANT = re.compile(r"\{([0-9]+)(?:(,)([0-9]*))?\}")
_NOT_LT = CharSet(ranges=LINE_TERM).emit(negate=True)
_W_IU = CharSet(ranges=WORD_IU).emit()
_ANY = CharSet(ranges=ANY).emit()


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Translation:
    """A translated pattern.

    Args:
        pattern: ``regex`` V0 syntax (case-insensitivity already spelled out).
        exact_below: when set, a counted repeat was clipped; the translation is exact only
            for texts shorter than this many units.
        anchored: the pattern is a conjunction of ``(?=[\\s\\S]*…)`` lookaheads without
            captures: it matches somewhere iff it matches at index 0, so ``test`` need not
            search (a search would be quadratic).
        needles: one of these occurs in every text the pattern matches (compared with the
            text's ``_js.lower`` form when the pattern has ``i``); ``None``: no such set.
        line_local: ``test(text)`` is ``any(test(line))`` over ``text.split("\\n")``.
    """

    pattern: str
    exact_below: int | None
    anchored: bool = False
    needles: tuple[str, ...] | None = None
    line_local: bool = False


def translate(pattern: str, flags: str) -> Translation:
    """Translate ``new RegExp(pattern, flags)`` to ``regex`` syntax.

    Args:
        pattern: the JavaScript pattern (code points; astral characters are split into
            surrogate pairs here when ``u`` is absent).
        flags: JavaScript flags, already checked to be distinct letters of ``gimsuy``.

    Returns:
        The translation.

    Raises:
        JSSyntaxError: where V8 throws a SyntaxError.
    """
    p = _Parser(pattern, flags)
    frag = p.disjunction()
    if p.pos < len(p.src):
        raise JSSyntaxError("Unmatched ')'")
    if frag.cost > TOTAL_BUDGET:  # never compiled: every test is reported like a timeout
        return Translation(pattern="(?!)", exact_below=0)
    anchored = frag.shape == "conj" and p.group_index == 0
    local = frag.facts.local and not anchored and "y" not in flags and p.exact_below is None
    return Translation(
        pattern=frag.text,
        exact_below=p.exact_below,
        anchored=anchored,
        needles=lit.needles(frag.facts) if p.exact_below is None else None,
        line_local=local,
    )


def _units(s: str) -> str:
    if s.isascii() or max(s) < "\U00010000":
        return s
    return "".join(map(chr, to_utf16_units(s)))


class _Parser(Cursor):
    """One parse; mutable state confined to a single ``translate`` call."""

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

    # --- structure ---------------------------------------------------------------------------

    def disjunction(self) -> Frag:
        alts = [self.alternative()]
        while self.peek() == "|":
            self.pos += 1
            alts.append(self.alternative())
        if len(alts) == 1:
            return alts[0]
        shapes = {a.shape for a in alts}
        return Frag(
            "|".join(a.text for a in alts),
            min(a.minw for a in alts),
            sum(a.cost for a in alts),
            shape=shapes.pop() if len(shapes) == 1 else "",
            facts=lit.alt([a.facts for a in alts]),
        )

    def alternative(self) -> Frag:
        parts: list[Frag] = []
        while self.pos < len(self.src) and self.peek() not in "|)":
            parts.append(self.term())
        texts = [f.text for f in parts]
        shape = ""
        if parts and parts[0].shape == "anystar":
            shape = "anystar"
        elif parts and all(f.shape == "conj" for f in parts):
            shape = "conj"
        return Frag(
            "".join(texts),
            sum(f.minw for f in parts),
            sum(f.cost for f in parts),
            shape=shape,
            facts=lit.seq([f.facts for f in parts]),
        )

    def term(self) -> Frag:
        first_group = self.group_index + 1
        frag = self.assertion() or self.atom()
        q = self.quantifier()
        if q is None:
            return frag
        if not frag.quantifiable:
            raise JSSyntaxError("Nothing to repeat")
        if self.has_backrefs and (q[1] is None or q[1] > 1):
            frag = self.reset_groups(frag, range(first_group, self.group_index + 1))
        return self.repeat(frag, q[0], q[1], lazy=q[2])

    def reset_groups(self, frag: Frag, groups: range) -> Frag:
        """JavaScript clears a repeated atom's captures at each iteration.

        For a backreference an undefined group and one holding ``""`` are the same (both
        match empty), so each iteration starts by capturing ``""`` into those groups (same
        group name, hence the same number).
        """
        if not groups:
            return frag
        resets = "".join(f"(?P<g{n}>)" for n in groups)
        return Frag(
            resets + frag.text,
            frag.minw,
            frag.cost + len(groups),
            frag.quantifiable,
            facts=frag.facts,
        )

    def assertion(self) -> Frag | None:
        c, rest = self.peek(), self.src[self.pos : self.pos + 4]
        if c == "^":
            self.pos += 1
            return Frag(
                f"(?<!{_NOT_LT})" if self.m else "\\A", 0, 1, quantifiable=False, facts=self.edge
            )
        if c == "$":
            self.pos += 1
            return Frag(
                f"(?!{_NOT_LT})" if self.m else "\\Z", 0, 1, quantifiable=False, facts=self.edge
            )
        if rest[:2] in ("\\b", "\\B"):
            self.pos += 2
            if not (self.u and self.i):  # regex's ASCII \b is JavaScript's, and fast
                return Frag(f"(?a:{rest[:2]})", 0, 1, quantifiable=False, facts=lit.EMPTY)
            w = _W_IU
            if rest[1] == "b":
                text = f"(?:(?<={w})(?!{w})|(?<!{w})(?={w}))"
            else:
                text = f"(?:(?<={w})(?={w})|(?<!{w})(?!{w}))"
            return Frag(text, 0, 1, quantifiable=False, facts=lit.EMPTY)
        if rest[:3] in ("(?=", "(?!"):
            self.pos += 3
            inner = self.close(self.disjunction())
            conj = rest[:3] == "(?=" and inner.shape == "anystar"
            return Frag(
                f"(?:{rest[:3]}{inner.text}))",
                0,
                inner.cost + 1,
                quantifiable=not self.u,
                shape="conj" if conj else "",
                facts=lit.look(inner.facts, positive=rest[:3] == "(?="),
            )
        if rest in ("(?<=", "(?<!"):
            self.pos += 4
            inner = self.close(self.disjunction())
            facts = lit.look(inner.facts, positive=rest == "(?<=")
            return Frag(f"{rest}{inner.text})", 0, inner.cost + 1, quantifiable=False, facts=facts)
        return None

    def close(self, frag: Frag) -> Frag:
        if self.peek() != ")":
            raise JSSyntaxError("Unterminated group")
        self.pos += 1
        return frag

    def quantifier(self) -> tuple[int, int | None, bool] | None:
        c = self.peek()
        if c == "*":
            lo, hi, self.pos = 0, None, self.pos + 1
        elif c == "+":
            lo, hi, self.pos = 1, None, self.pos + 1
        elif c == "?":
            lo, hi, self.pos = 0, 1, self.pos + 1
        elif c == "{":
            m = _QUANT.match(self.src, self.pos)
            if m is None:
                if self.u:
                    raise JSSyntaxError("Incomplete quantifier")
                return None
            lo = int(m.group(1))
            hi = lo if not m.group(2) else (int(m.group(3)) if m.group(3) else None)
            if hi is not None and hi < lo:
                raise JSSyntaxError("numbers out of order in {} quantifier")
            self.pos = m.end()
        else:
            return None
        lazy = self.peek() == "?"
        if lazy:
            self.pos += 1
        return lo, hi, lazy

    def repeat(self, frag: Frag, lo: int, hi: int | None, *, lazy: bool) -> Frag:
        facts = lit.repeat(frag.facts, lo, hi)
        per = max(frag.cost, 1)
        limit = max(1, COUNT_BUDGET // per)
        if lo > limit:
            if frag.minw > 0:
                self.clip(lo * frag.minw)
                return Frag(f"(?!)(?:{frag.text})", lo * frag.minw, frag.cost + 1, facts=facts)
            self.clip(limit)
            lo = limit
        if hi is not None and hi > limit:
            self.clip(hi * max(frag.minw, 1))
            hi = None
        shape = "anystar" if frag.text == _ANY and (lo, hi) == (0, None) else ""
        if (lo, hi) == (0, None):
            q = "*"
        elif (lo, hi) == (1, None):
            q = "+"
        elif (lo, hi) == (0, 1):
            q = "?"
        elif hi is None:
            q = f"{{{lo},}}"
        elif hi == lo:
            q = f"{{{lo}}}"
        else:
            q = f"{{{lo},{hi}}}"
        cost = per * ((hi if hi is not None else lo) + 1)
        text = f"(?:{frag.text}){q}{'?' if lazy else ''}"
        return Frag(text, frag.minw * lo, cost, shape=shape, facts=facts)

    def clip(self, exact_below: int) -> None:
        if self.exact_below is None or exact_below < self.exact_below:
            self.exact_below = exact_below

    # --- atoms -------------------------------------------------------------------------------

    def atom(self) -> Frag:
        c = self.peek()
        if c == ".":
            self.pos += 1
            return Frag(_ANY if self.s else _NOT_LT, 1, 1, facts=lit.Facts(local=not self.s))
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_class()
        if c == "\\":
            return self.atom_escape()
        if c in ("*", "+", "?"):
            raise JSSyntaxError("Nothing to repeat")
        if c == "{":
            if self.u:
                raise JSSyntaxError("Lone quantifier brackets")
            if _QUANT.match(self.src, self.pos):
                raise JSSyntaxError("Nothing to repeat")
        if c in ("}", "]") and self.u:
            raise JSSyntaxError("Lone quantifier brackets")
        self.pos += 1
        return self.literal(ord(c))

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
        local = regex.match(text, "\n") is None
        return Frag(text, 1, 1, facts=lit.Facts(exact=facts.exact, need=facts.need, local=local))

    def group(self) -> Frag:
        if self.src.startswith("(?:", self.pos):
            self.pos += 3
            inner = self.close(self.disjunction())
            return Frag(f"(?:{inner.text})", inner.minw, inner.cost + 1, facts=inner.facts)
        if self.src.startswith("(?<", self.pos):
            _, self.pos = read_name(self.src, self.pos + 3, unicode=self.u)
        elif self.src.startswith("(?", self.pos):
            raise JSSyntaxError("Invalid group")
        else:
            self.pos += 1
        self.group_index += 1
        n = self.group_index
        self.open.append(n)
        inner = self.close(self.disjunction())
        self.open.pop()
        return Frag(f"(?P<g{n}>{inner.text})", inner.minw, inner.cost + 1, facts=inner.facts)

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
