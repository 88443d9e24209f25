"""Case-insensitive matching of the JavaScript regex translator, as explicit character sets.

``regex.IGNORECASE`` is never used: its equivalences differ from both of JavaScript's.
Without ``u`` two UTF-16 units are equal when their ``toUpperCase`` forms are (single-unit
results only, and never a non-ASCII unit to an ASCII one; Python's Unicode data); with ``u``
when their Unicode simple case foldings are (``regex``'s Unicode data, which is as recent as
V8's ICU, minus its Turkic i folding). Each literal and each class is emitted as its closure.
"""

from __future__ import annotations

import bisect
import functools

import regex  # type: ignore[import-untyped,unused-ignore]

from worldinfo._jsregex_chars import CharSet, char_set, normalize

_CASED_END = 0x20000
"""No code point at or above this has a case mapping."""

_TURKIC = (0x130, 0x131)
"""İ and ı: ``regex`` folds them with i/I; Unicode simple case folding (JavaScript) does not."""


def _canon_upper(cp: int) -> int:
    """ECMAScript Canonicalize without ``u``: ``toUpperCase``, single results, no non-ASCII→ASCII."""
    up = chr(cp).upper()
    if len(up) != 1:
        return cp
    ucp = ord(up)
    if cp >= 0x80 and ucp < 0x80:
        return cp
    return ucp


@functools.cache
def _regex_equivalents() -> dict[int, frozenset[int]]:
    """For every cased character, what ``regex`` (its own, recent Unicode data) folds it with."""
    everything = "".join(chr(cp) for cp in range(_CASED_END) if not 0xD800 <= cp <= 0xDFFF)
    cands = {ord(c) for c in regex.findall(r"\p{Changes_When_Casemapped}", everything)}
    for cp in range(_CASED_END):
        c = chr(cp)
        if not 0xD800 <= cp <= 0xDFFF and (c.lower() != c or c.upper() != c or c.casefold() != c):
            cands.add(cp)
    text = "".join(map(chr, sorted(cands)))
    return {
        cp: frozenset(ord(m) for m in regex.findall("(?i)" + regex.escape(chr(cp)), text))
        for cp in cands
    }


def _unicode_groups() -> list[list[int]]:
    """Simple case folding classes: ``regex``'s equivalences without its Turkic extras."""
    seen: set[int] = set()
    groups: list[list[int]] = []
    for cp, eq in sorted(_regex_equivalents().items()):
        if cp in seen or cp in _TURKIC:
            continue
        group = sorted(eq - set(_TURKIC))
        seen.update(group)
        groups.append(group)
    return groups


@functools.cache
def _groups(unicode: bool) -> tuple[tuple[int, ...], ...]:
    """Equivalence classes (of size > 1) of case-insensitive equality."""
    if unicode:
        return tuple(tuple(g) for g in _unicode_groups() if len(g) > 1)
    by_canon: dict[int, list[int]] = {}
    for cp in range(0x10000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        by_canon.setdefault(_canon_upper(cp), []).append(cp)
    return tuple(tuple(g) for g in by_canon.values() if len(g) > 1)


@functools.cache
def _index(unicode: bool) -> dict[int, tuple[int, ...]]:
    return {cp: g for g in _groups(unicode) for cp in g}


def fold_literal(cp: int, *, unicode: bool) -> CharSet:
    """The set of characters equal to ``cp`` when ignoring case."""
    group = _index(unicode).get(cp)
    if group is None:
        return char_set(cp)
    return CharSet(ranges=normalize([(c, c) for c in group]))


def fold_closure(cs: CharSet, *, unicode: bool) -> CharSet:
    """Close a set under case-insensitive equality (the set a class matches with ``i``).

    A negated class ``[^…]`` with ``i`` is the complement of the closure of its contents.
    """
    starts = [lo for lo, _ in cs.ranges]
    props = regex.compile("[" + "".join(cs.props) + "]") if cs.props else None

    def member(cp: int) -> bool:
        i = bisect.bisect_right(starts, cp) - 1
        if i >= 0 and cs.ranges[i][1] >= cp:
            return True
        return props is not None and props.match(chr(cp)) is not None

    extra: list[tuple[int, int]] = []
    for group in _groups(unicode):
        inside = [member(c) for c in group]
        if any(inside) and not all(inside):
            extra.extend((c, c) for c, isin in zip(group, inside, strict=True) if not isin)
    if not extra:
        return cs
    return CharSet(ranges=normalize(cs.ranges + tuple(extra)), props=cs.props)


@functools.cache
def regex_disagrees(unicode: bool) -> frozenset[int]:
    """Code points whose ``regex`` ignore-case equivalents differ from JavaScript's.

    Every other character may be emitted inside ``(?i:…)``, which lets ``regex`` search a
    literal run quickly instead of stepping through one class per character.
    """
    index = _index(unicode)
    return frozenset(
        cp for cp, eq in _regex_equivalents().items() if eq != set(index.get(cp, (cp,)))
    )
