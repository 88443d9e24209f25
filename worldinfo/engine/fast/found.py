"""The positions a configuration's key hits visit, counted, derived from the closest recent hits.

``FastScan.visit`` needs, per scan-text configuration, the positions listed in
``Plan.by_needle[cid]`` under any key id present in the pass (the *found* positions). A
later turn of a chat hits almost the same keys as the turn before (one message more, the
oldest one of a depth-limited window gone, a few other entries activated for recursion) but
rarely the very same set, so building the found positions from every hit key each turn
redoes most of the last turn's work. Here they are kept as a count per position: how many
of the hit ids list it (one byte per position of the plan, ``Found.counts``). From the
recent counts whose hits differ least, the ids added add one at each position they list and
the ids gone take one away; a position is found while its count is not zero. That is
exactly the position set of the new hits, whatever the base.

A count above 255 (a position listed under that many hit ids) does not fit a byte: such
hits are counted as a 0/1 mask of the found positions instead, never used as a base
(``Found.exact``). Counts and masks are shared between scans: read them, never change them.

The visit list and its nomination codes are then picked from a byte mask of the union
(``union_mask``) by whole-buffer operations (``FoundSets.positions``, ``FoundSets.codes``),
not built from sets of position objects: in a later turn the sets of the turn before are
out of the processor's caches, and a mask of the plan's 5,000 positions is 5 kB.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from itertools import accumulate, chain, compress, repeat
from itertools import count as itertools_count
from operator import add, is_, itemgetter

Hits = frozenset[int] | set[int]
Table = Mapping[int, Sequence[int]]
SIMPLE, PLAIN, FULL, UNSEEN = 0, 1, 2, 3
"""``FastScan.codes``: how a visited position is nominated (``UNSEEN``: not known yet);
``nomination_codes`` computes them."""
KEEP = 4
"""Recent found counts kept per configuration (a scan's passes, the last turn's, a swipe's)."""
_TO_MASK = bytes([0] + [255] * 255)
"""``bytes.translate`` table: a count to a mask byte (0 or 255)."""
SPARSE = 16
"""``positions`` counts the zero runs when fewer than one position in this many is set
(``FastScan.visit`` then takes the positions the hit keys list, ``listed``)."""
_FULL_ONLY = bytes(255 if b == FULL else 0 for b in range(256))
"""``bytes.translate`` table: a code to 255 where it is ``FULL``, else 0."""
_PLUS = bytes((b + 1) & 255 for b in range(256))
_MINUS = bytes((b - 1) & 255 for b in range(256))


class Found:
    """The key hits of one configuration in a pass and the positions they list.

    Args:
        hits: the key ids present.
        counts: per position of the plan, how many ids of ``hits`` list it (``exact``), or
            1 where one does (not ``exact``).
        exact: the counts are counts (a base for other hits).
    """

    __slots__ = ("counts", "exact", "hits")

    def __init__(self, hits: AbstractSet[int], counts: bytearray, *, exact: bool) -> None:
        self.hits = hits
        self.counts = counts
        self.exact = exact


class FoundSets:
    """Recent ``Found`` per configuration of one plan, the plan's positions as objects (what
    ``positions`` picks from) and its nomination codes (``codes``)."""

    __slots__ = ("_codes", "_full", "_pool", "_recent")

    def __init__(self) -> None:
        self._recent: dict[int, list[Found]] = {}
        self._pool: list[int] = []
        self._codes: int | None = None
        """Each position's nomination code + 1, a byte each, once computed."""
        self._full: list[int] = []
        """The positions whose code is ``FULL``, ascending (``full``)."""

    def __repr__(self) -> str:
        return f"FoundSets(configurations={len(self._recent)})"

    def found(self, cid: int, table: Table, hits: Hits, size: int, prev: Found | None) -> Found:
        """The ``Found`` of ``hits`` in configuration ``cid`` (``table``: its
        ``Plan.by_needle``) of a plan of ``size`` positions: a recent one with equal hits,
        else counted from the closest recent one or ``prev`` (this scan's previous pass)."""
        recent = self._recent.setdefault(cid, [])
        for got in recent:
            if got.hits is hits or (len(got.hits) == len(hits) and got.hits == hits):
                return got
        bases = [f for f in recent if f.exact]
        if prev is not None and prev.exact and all(f is not prev for f in recent):
            bases.append(prev)
        got = count(table, hits, size, bases)
        recent.append(got)
        if len(recent) > KEEP:
            del recent[0]
        return got

    def positions(self, mask: bytearray, start: int = 0, end: int | None = None) -> list[int]:
        """The positions where ``mask[start:end]`` is not zero, ascending: from the lengths of
        the zero runs between them when they are few (``bytes.split``: a cost per position
        found), else picked from every position (``itertools.compress``: a cost per byte)."""
        size = len(mask)
        end = size if end is None else end
        window = mask if start == 0 and end == size else mask[start:end]
        if (len(window) - window.count(0)) * SPARSE < len(window):
            runs = window.translate(_TO_MASK).split(b"\xff")
            del runs[-1]  # the zeros after the last one
            return list(map(add, accumulate(map(len, runs)), itertools_count(start)))
        pool = self._pool
        if len(pool) != size:
            pool = self._pool = list(range(size))
        return list(compress(pool if window is mask else pool[start:end], window))

    def ready(self, table: bytearray, every: Callable[[], bytes]) -> None:
        """Fill ``table`` (``FactTable.codes``) with the plan's codes, ``every()``, the
        first time."""
        if self._codes is None:
            table[:] = every()
            self._codes = int.from_bytes(table.translate(_PLUS), "little")
            self._full = self.positions(table.translate(_FULL_ONLY))

    def codes(self, mask: bytearray, table: bytearray, every: Callable[[], bytes]) -> bytes:
        """``FastScan.codes`` of the positions where ``mask`` is not zero, in order: the
        plan's codes (``table``, ``ready``) where the mask is, done on whole integers (each
        code + 1 masked, the zero bytes dropped, 1 taken off each)."""
        self.ready(table, every)
        assert self._codes is not None
        keep = int.from_bytes(mask.translate(_TO_MASK), "little")
        size = len(mask)
        return (keep & self._codes).to_bytes(size, "little").translate(_MINUS, b"\x00")

    @staticmethod
    def codes_at(positions: list[int], table: bytearray) -> bytes:
        """The codes at ``positions`` (``table`` ``ready``), read by one ``itemgetter`` call:
        a cost per position, where ``codes`` costs per byte of the mask."""
        if len(positions) < 2:
            return bytes(map(table.__getitem__, positions))
        return bytes(itemgetter(*positions)(table))

    def full(self, mask: bytearray) -> list[int]:
        """The positions where ``mask`` is not zero whose code is ``FULL`` (after ``ready``),
        ascending: read at the plan's ``FULL`` positions alone."""
        full = self._full
        if len(full) < 2:
            return [p for p in full if mask[p]]
        return list(compress(full, itemgetter(*full)(mask)))


def listed(tables: Sequence[tuple[Table, AbstractSet[int]]], always: Sequence[int]) -> list[int]:
    """The positions the ``tables`` (``Plan.by_needle`` of a configuration, its hits) list
    under their hits, and ``always``, ascending: what ``positions`` picks from the union's
    mask, at a cost per listed position instead of per byte (a pass with few hits)."""
    out = set(always)
    for table, hits in tables:
        out.update(chain.from_iterable(map(table.__getitem__, table.keys() & hits)))
    return sorted(out)


def count(table: Table, hits: Hits, size: int, bases: Sequence[Found]) -> Found:
    """The ``Found`` of ``hits``: from the closest of ``bases`` when it is closer than
    nothing (the counts of fewer ids change), else from zero."""
    best = _closest(hits, bases)
    try:
        if best is None:
            counts = bytearray(size)
            _add(counts, table, table.keys() & hits)
        else:
            added, removed, base = best
            counts = bytearray(base.counts)
            for pos in chain.from_iterable(map(table.__getitem__, table.keys() & removed)):
                counts[pos] -= 1  # first: no count then passes its final value
            _add(counts, table, table.keys() & added)
    except ValueError:  # a count past 255: a mask of the positions instead
        counts = bytearray(size)
        for pos in frozenset().union(*map(table.__getitem__, table.keys() & hits)):
            counts[pos] = 1
        return Found(hits, counts, exact=False)
    return Found(hits, counts, exact=True)


def _add(counts: bytearray, table: Table, keys: AbstractSet[int]) -> None:
    """Add one to ``counts`` at each position ``table`` lists under one of ``keys``."""
    for pos in chain.from_iterable(map(table.__getitem__, keys)):
        counts[pos] += 1


def _closest(
    hits: Hits, bases: Sequence[Found]
) -> tuple[AbstractSet[int], AbstractSet[int], Found] | None:
    """(ids added, ids gone, base) for the base whose hits differ from ``hits`` in fewer
    ids than ``hits`` has, the fewest; else ``None``. A base differs in at least the
    difference of the sizes: bases are tried in that order, until that bound alone is as
    large as the best difference found."""
    size = len(hits)
    best: tuple[AbstractSet[int], AbstractSet[int], Found] | None = None
    bound = size
    for base in sorted(bases, key=lambda b: abs(len(b.hits) - size)):
        if abs(len(base.hits) - size) >= bound:
            break
        added = hits - base.hits
        removed = base.hits - hits
        if len(added) + len(removed) < bound:
            best, bound = (added, removed, base), len(added) + len(removed)
    return best


def union_mask(masks: Sequence[bytearray], always: Sequence[int], size: int) -> bytearray:
    """A byte per position, not zero where one of ``masks`` is or the position is in
    ``always``."""
    if len(masks) == 1:
        out = bytearray(masks[0])
    else:
        acc = 0
        for mask in masks:
            acc |= int.from_bytes(mask, "little")
        out = bytearray(acc.to_bytes(size, "little"))
    for pos in always:
        out[pos] = 1
    return out


def nomination_codes(
    plain: Sequence[bool], secondary: Sequence[object], regex: AbstractSet[int]
) -> bytes:
    """``FastScan.codes`` of every position of a plan (its ``plain``, ``secondary`` and
    ``regex_positions``): ``SIMPLE`` (0) for a ``PLAIN`` entry with neither secondary nor
    regex keys, ``PLAIN`` (1) for another plain entry, ``FULL`` (2) for the rest; computed
    for the whole plan at once, on whole integers (2 - plain - simple, a byte each, never
    below 0), when a scan first needs one."""
    size = len(plain)
    simple = bytearray(map(is_, secondary, repeat(None)))
    for pos in regex:
        simple[pos] = 0
    plain_bits = int.from_bytes(bytes(plain), "little")
    twos = int.from_bytes(b"\x02" * size, "little")
    both = plain_bits & int.from_bytes(simple, "little")
    return (twos - plain_bits - both).to_bytes(size, "little")
