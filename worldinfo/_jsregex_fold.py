"""Case-insensitive matching of the JavaScript regex translator, as explicit character sets.

``regex.IGNORECASE`` is never used: its equivalences differ from both of JavaScript's.
Without ``u`` two UTF-16 units are equal when their ``toUpperCase`` forms are (single-unit
results only, and never a non-ASCII unit to an ASCII one); with ``u`` when their Unicode
simple case foldings are. Each literal and each class is emitted as its closure.
"""

from __future__ import annotations

import bisect
import functools

import regex  # type: ignore[import-untyped,unused-ignore]

from worldinfo._jsregex_chars import CharSet, char_set, normalize

_CASED_END = 0x1F000
"""No code point at or above this has a case mapping."""


def _canon_upper(cp: int) -> int:
    """ECMAScript Canonicalize without ``u``: ``toUpperCase``, single results, no non-ASCII→ASCII."""
    up = chr(cp).upper()
    if len(up) != 1:
        return cp
    ucp = ord(up)
    if cp >= 0x80 and ucp < 0x80:
        return cp
    return ucp


def _simple_fold(cp: int) -> int:
    """Unicode simple case folding (CaseFolding.txt statuses C and S)."""
    c = chr(cp)
    folded = c.casefold()
    if len(folded) == 1:
        return ord(folded)
    low = c.lower()
    if len(low) == 1 and low != c:
        return ord(low)
    return cp


@functools.cache
def _groups(unicode: bool) -> tuple[tuple[int, ...], ...]:
    """Equivalence classes (of size > 1) of case-insensitive equality."""
    canon = _simple_fold if unicode else _canon_upper
    by_canon: dict[int, list[int]] = {}
    for cp in range(_CASED_END if unicode else 0x10000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        by_canon.setdefault(canon(cp), []).append(cp)
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
    cands: set[int] = set(_index(True)) | set(_index(False))
    for cp in range(_CASED_END):
        c = chr(cp)
        if c.lower() != c or c.upper() != c or c.casefold() != c:
            cands.add(cp)
    cands = {cp for cp in cands if not 0xD800 <= cp <= 0xDFFF}
    text = "".join(map(chr, sorted(cands)))
    index = _index(unicode)
    out: set[int] = set()
    for cp in cands:
        found = {ord(m) for m in regex.findall("(?i)" + regex.escape(chr(cp)), text)}
        if found != set(index.get(cp, (cp,))):
            out.add(cp)
    return frozenset(out)
