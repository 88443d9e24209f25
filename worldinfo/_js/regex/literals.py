"""What a regex key's matches must contain: literal needles for a prefilter, and line locality.

The translator (``parse``) computes ``Facts`` for every fragment as it parses, bottom up:

* ``exact``: every string the fragment can consume, when they are few and short (a literal,
  a small class, an alternation or concatenation of such, ``x?``);
* ``need``: a disjunction of needles: every match of the fragment (for a lookaround: the
  text it looks at) contains one of them. A concatenation takes the best of its parts' needs
  and of the products of its runs of ``exact`` parts; an alternation the union of its
  alternatives' (unknown if one alternative has none); a repeat ``{n,m}`` with ``n >= 1``
  its atom's; ``?``/``*``/``{0,m}`` and negative lookarounds none;
* ``local``: no part can consume or look at ``"\\n"``, and no ``^``/``$`` anchors the whole
  input (without ``m``). Then a match in a text made of lines joined with ``"\\n"`` lies
  within one line, and a line matches alone exactly when it matches in place: the neighbour
  the regex sees at a line edge is ``"\\n"``, which nothing in it can match, just as nothing
  is there at a string edge; ``\\b`` treats both as non-word; ``^``/``$`` with ``m`` hold at
  both. So ``test(text) == any(test(line) for line in text.split("\\n"))``.

Needles are written the way the key index compares them (``Needle.lowered``): without
``i`` the code point itself; with ``i`` the ``_js.lower`` form shared by every member of the
character's case group (the characters the regex lets stand for it). A character whose group
lowers to more than one form (``ſ``/``s``/``S`` with ``u``), to several characters (``İ``),
or depends on context (Greek sigma) is no needle character; nor are ``"\\n"``, ``"\\x01"``
(the scan text's joiners) and lone surrogates. So a needle of a matching key is always a
substring of the raw line (or of its ``_js.lower`` form).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence

from worldinfo import _js
from worldinfo._js.regex.fold import case_group
from worldinfo._record import record

MAX_SET = 16
"""Most strings an ``exact`` set or a ``need`` disjunction holds."""
MAX_LEN = 40
"""Longest string an ``exact`` set holds (longer products are not spelled out)."""
MAX_CLASS = 8
"""Largest character class whose members become ``exact`` strings."""
MAX_REPEAT = 3
"""Largest upper bound of a repeat whose ``exact`` strings are spelled out."""

_SIGMA = frozenset((0x3A3, 0x3C2, 0x3C3))
_NOT_NEEDLE = frozenset((0x0A, 0x01))


@record(kw_only=False)
class Facts:
    """What is known of a fragment's matches (``None``: nothing)."""

    exact: frozenset[str] | None = None
    need: frozenset[str] | None = None
    local: bool = False


UNKNOWN = Facts()
EMPTY = Facts(exact=frozenset({""}), local=True)
"""A zero-width assertion that cannot see a line break (``\\b``, ``^``/``$`` with ``m``)."""


@functools.lru_cache(maxsize=4096)
def needle_char(cp: int, *, fold: bool, unicode: bool) -> str | None:
    """The needle form of a pattern character, or ``None`` when it cannot be one."""
    if cp in _NOT_NEEDLE or 0xD800 <= cp <= 0xDFFF:
        return None
    if not fold:
        return chr(cp)
    forms = set()
    for member in case_group(cp, unicode=unicode):
        if member in _SIGMA or 0xD800 <= member <= 0xDFFF:
            return None
        forms.add(_js.lower(chr(member)))
    form = forms.pop()
    if forms or len(form) != 1 or ord(form) in _NOT_NEEDLE:
        return None
    return form


def literal(cp: int, *, fold: bool, unicode: bool) -> Facts:
    """A pattern character."""
    ch = needle_char(cp, fold=fold, unicode=unicode)
    exact = None if ch is None else frozenset({ch})
    return Facts(exact=exact, need=exact, local=cp != 0x0A)


def char_class(members: Sequence[tuple[int, int]] | None, *, fold: bool, unicode: bool) -> Facts:
    """A class or class escape: its code point ranges when they are few, else ``None``."""
    if members is None or sum(hi - lo + 1 for lo, hi in members) > MAX_CLASS:
        return UNKNOWN
    chars = set()
    for lo, hi in members:
        for cp in range(lo, hi + 1):
            ch = needle_char(cp, fold=fold, unicode=unicode)
            if ch is None:
                return UNKNOWN
            chars.add(ch)
    exact = frozenset(chars)
    return Facts(exact=exact, need=exact, local=True)


def _product(sets: Iterable[frozenset[str]]) -> frozenset[str] | None:
    out = frozenset({""})
    for s in sets:
        out = frozenset(a + b for a, b in itertools.product(out, s))
        if len(out) > MAX_SET or any(len(x) > MAX_LEN for x in out):
            return None
    return out


def _simplify(need: frozenset[str] | None) -> frozenset[str] | None:
    """Drop needles that contain another (the shorter one is present whenever they are)."""
    if need is None or "" in need or len(need) > MAX_SET:
        return None
    return frozenset(n for n in need if not any(m != n and m in n for m in need))


def _score(need: frozenset[str]) -> tuple[int, int]:
    return min(len(n) for n in need), -len(need)


def best(candidates: Iterable[frozenset[str] | None]) -> frozenset[str] | None:
    """The most selective usable disjunction (longest shortest needle, then fewest)."""
    usable = [s for s in map(_simplify, candidates) if s]
    return max(usable, key=_score) if usable else None


def seq(parts: Sequence[Facts]) -> Facts:
    """A concatenation."""
    local = all(p.local for p in parts)
    candidates: list[frozenset[str] | None] = [p.need for p in parts]
    run = frozenset({""})
    exacts: list[frozenset[str]] = []
    for p in parts:
        if p.exact is None:
            candidates.append(run)
            run = frozenset({""})
            continue
        exacts.append(p.exact)
        grown = _product((run, p.exact))
        if grown is None:
            candidates.append(run)
            grown = p.exact
        run = grown
    candidates.append(run)
    exact = _product(exacts) if len(exacts) == len(parts) else None
    return Facts(exact=exact, need=best(candidates), local=local)


def alt(parts: Sequence[Facts]) -> Facts:
    """An alternation."""
    local = all(p.local for p in parts)
    exact: frozenset[str] | None = None
    if all(p.exact is not None for p in parts):
        exact = frozenset(s for p in parts for s in p.exact or ())
        exact = exact if len(exact) <= MAX_SET else None
    needs = [n for n in (best((p.need, p.exact)) for p in parts) if n is not None]
    need = _simplify(frozenset().union(*needs)) if len(needs) == len(parts) else None
    return Facts(exact=exact, need=need, local=local)


def repeat(atom: Facts, lo: int, hi: int | None) -> Facts:
    """A quantified atom ``{lo,hi}`` (``hi`` ``None``: unbounded)."""
    exact = None
    if atom.exact is not None and hi is not None and hi <= MAX_REPEAT:
        sets = [_product([atom.exact] * k) for k in range(lo, hi + 1)]
        if all(s is not None for s in sets):
            exact = frozenset().union(*(s for s in sets if s is not None))
            exact = exact if len(exact) <= MAX_SET else None
    need = None
    if lo >= 1:
        power = _product([atom.exact] * min(lo, MAX_REPEAT)) if atom.exact is not None else None
        need = best((atom.need, atom.exact, power))
    return Facts(exact=exact, need=need, local=atom.local)


def look(inner: Facts, *, positive: bool) -> Facts:
    """A lookahead or lookbehind: it consumes nothing; a positive one needs its text."""
    need = best((inner.need, inner.exact)) if positive else None
    return Facts(exact=frozenset({""}), need=need, local=inner.local)


def needles(facts: Facts) -> tuple[str, ...] | None:
    """The prefilter of a whole pattern: one of these occurs wherever it matches."""
    found = best((facts.need, facts.exact))
    return tuple(sorted(found)) if found else None
