"""Translate a JavaScript pattern (ECMAScript grammar, Annex B without ``u``) to ``regex`` syntax.

A recursive-descent parser that emits ``regex`` V0 text as it goes (the atoms without
subpatterns are ``atoms``; escapes and classes are read by ``escapes``). It raises
``JSSyntaxError`` wherever V8 (Node 20) throws, and emits only simple constructs: explicit
classes, explicit anchors and boundaries, conditional backreferences.
"""

from __future__ import annotations

from worldinfo._js.regex import literals as lit
from worldinfo._js.regex.atoms import ANY_TEXT, NOT_LT, W_IU, AtomParser, Frag
from worldinfo._js.regex.names import JSSyntaxError, read_name
from worldinfo._js.regex.quantifiers import QUANT, TOTAL_BUDGET, quantifier, repeat
from worldinfo._record import record


@record
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


class _Parser(AtomParser):
    """One parse: groups, alternatives, assertions and quantifiers over ``AtomParser``."""

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
        q = quantifier(self)
        if q is None:
            return frag
        if not frag.quantifiable:
            raise JSSyntaxError("Nothing to repeat")
        if self.has_backrefs and (q[1] is None or q[1] > 1):
            frag = self.reset_groups(frag, range(first_group, self.group_index + 1))
        out, clipped = repeat(frag, q[0], q[1], lazy=q[2])
        if clipped is not None:
            self.clip(clipped)
        return out

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
                f"(?<!{NOT_LT})" if self.m else "\\A", 0, 1, quantifiable=False, facts=self.edge
            )
        if c == "$":
            self.pos += 1
            return Frag(
                f"(?!{NOT_LT})" if self.m else "\\Z", 0, 1, quantifiable=False, facts=self.edge
            )
        if rest[:2] in ("\\b", "\\B"):
            self.pos += 2
            if not (self.u and self.i):  # regex's ASCII \b is JavaScript's, and fast
                return Frag(f"(?a:{rest[:2]})", 0, 1, quantifiable=False, facts=lit.EMPTY)
            w = W_IU
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

    def clip(self, exact_below: int) -> None:
        if self.exact_below is None or exact_below < self.exact_below:
            self.exact_below = exact_below

    # --- atoms -------------------------------------------------------------------------------

    def atom(self) -> Frag:
        c = self.peek()
        if c == ".":
            self.pos += 1
            return Frag(ANY_TEXT if self.s else NOT_LT, 1, 1, facts=lit.Facts(local=not self.s))
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
            if QUANT.match(self.src, self.pos):
                raise JSSyntaxError("Nothing to repeat")
        if c in ("}", "]") and self.u:
            raise JSSyntaxError("Lone quantifier brackets")
        self.pos += 1
        return self.literal(ord(c))

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
