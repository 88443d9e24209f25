"""Quantifiers of the JavaScript regex grammar and their bounded ``regex`` spelling.

``quantifier`` reads ``*``, ``+``, ``?`` and ``{n}``, ``{n,}``, ``{n,m}`` (and a lazy ``?``)
where V8 does; ``repeat`` spells a quantified fragment in ``regex`` syntax, clipping counts
whose unrolling would exceed ``COUNT_BUDGET`` atom copies (the translation is then exact
only below a text length).
"""

from __future__ import annotations

import re

from worldinfo._js.regex import literals as lit
from worldinfo._js.regex.atoms import ANY_TEXT, Frag
from worldinfo._js.regex.escapes import Cursor
from worldinfo._js.regex.names import JSSyntaxError

COUNT_BUDGET = 50_000
"""Most atom copies one quantifier may ask ``regex`` to spell out (it unrolls counts)."""
TOTAL_BUDGET = 150_000
"""Most atom copies a whole pattern may spell out: `regex` V0 segfaults compiling ~172k
copies of an empty-matching group in one pattern (`(?:a|){60000}` twelve times), so the
bound stays under that (every copy costs at least 1)."""

QUANT = re.compile(r"\{([0-9]+)(?:(,)([0-9]*))?\}")
"""A braced count, ``{n}``, ``{n,}`` or ``{n,m}``."""


def quantifier(cur: Cursor) -> tuple[int, int | None, bool] | None:
    """The quantifier at ``cur`` as ``(lo, hi, lazy)`` (``hi`` ``None``: unbounded); advances.

    Raises:
        JSSyntaxError: an incomplete count under ``u``, or counts out of order.
    """
    c = cur.peek()
    if c == "*":
        lo, hi, cur.pos = 0, None, cur.pos + 1
    elif c == "+":
        lo, hi, cur.pos = 1, None, cur.pos + 1
    elif c == "?":
        lo, hi, cur.pos = 0, 1, cur.pos + 1
    elif c == "{":
        m = QUANT.match(cur.src, cur.pos)
        if m is None:
            if cur.u:
                raise JSSyntaxError("Incomplete quantifier")
            return None
        lo = int(m.group(1))
        hi = lo if not m.group(2) else (int(m.group(3)) if m.group(3) else None)
        if hi is not None and hi < lo:
            raise JSSyntaxError("numbers out of order in {} quantifier")
        cur.pos = m.end()
    else:
        return None
    lazy = cur.peek() == "?"
    if lazy:
        cur.pos += 1
    return lo, hi, lazy


def repeat(frag: Frag, lo: int, hi: int | None, *, lazy: bool) -> tuple[Frag, int | None]:
    """``frag`` repeated ``lo`` to ``hi`` times, and the text length below which that is exact.

    Returns:
        The repeated fragment, and ``None`` when no count was clipped, else the length (in
        units) below which the clipped spelling matches exactly as the original.
    """
    facts = lit.repeat(frag.facts, lo, hi)
    per = max(frag.cost, 1)
    limit = max(1, COUNT_BUDGET // per)
    clipped: int | None = None
    if lo > limit:
        if frag.minw > 0:
            text = f"(?!)(?:{frag.text})"
            return Frag(text, lo * frag.minw, frag.cost + 1, facts=facts), lo * frag.minw
        clipped = limit
        lo = limit
    if hi is not None and hi > limit:
        below = hi * max(frag.minw, 1)
        clipped = below if clipped is None else min(clipped, below)
        hi = None
    shape = "anystar" if frag.text == ANY_TEXT and (lo, hi) == (0, None) else ""
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
    return Frag(text, frag.minw * lo, cost, shape=shape, facts=facts), clipped
