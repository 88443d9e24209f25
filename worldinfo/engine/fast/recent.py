"""What recent scans of a plan derived from their texts, kept by the texts themselves.

A front-end scans the same chat again and again (a swipe, a regeneration, the next turn over
mostly the same messages), and a scan's recursion text is joined from the same contents in
the same order. ``RecentTexts`` keeps, a few at a time: the key ids found in a tuple of texts
(``KeyIndex.found_all``, a pure function of the texts and the plan's needles), the union of
the id sets a pass combines, and recursion texts joined from contents. Every value is keyed
by everything it is computed from (texts compared by value; sets by value, their hashes
cached by Python), so a hit returns what computing it again would; a later needle added to
the index (``KeyIndex.size`` changes) drops them all.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from worldinfo.engine.fast.found import Found, FoundSets
from worldinfo.engine.fast.matcher import KeyIndex

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Generic, TypeVar
else:
    from worldinfo._lazy import Generic, TypeVar

KEEP = 16
"""Values kept per table; one more clears the table (a scan reads a handful)."""
MESSAGES_KEEP = 512
"""Single texts whose ids are kept (``RecentTexts.text_ids``: a chat's recent messages)."""
V = TypeVar("V")


def _put(table: dict[Hashable, V], key: Hashable, value: V) -> V:
    if len(table) >= KEEP:
        table.clear()
    table[key] = value
    return value


class Recent(Generic[V]):
    """A few values by key: one more than ``KEEP`` clears them."""

    __slots__ = ("_table",)

    def __init__(self) -> None:
        self._table: dict[Hashable, V] = {}

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value kept under ``key``, else ``make()``, kept."""
        got = self._table.get(key)
        if got is None:
            got = _put(self._table, key, make())
        return got

    def __len__(self) -> int:
        return len(self._table)

    def clear(self) -> None:
        """Drop every value."""
        self._table.clear()


class RecentTexts:
    """Key ids per text tuple, unions of id sets and joined texts of recent scans."""

    __slots__ = ("_joined", "_one", "_size", "_texts", "_unions", "assembled", "found")

    def __init__(self) -> None:
        self._size = -1
        self._texts: dict[Hashable, frozenset[int]] = {}
        self._one: dict[str, frozenset[int]] = {}
        self._unions: dict[Hashable, frozenset[int]] = {}
        self._joined: dict[Hashable, str] = {}
        self.assembled: Recent[object] = Recent()
        """Prompt pieces by (positions, contents) of the activated entries (``output``)."""
        self.found = FoundSets()
        """The positions recent key hits visit, per configuration (``FastScan.visit``): a
        function of the hits and the plan alone, so ``forget`` keeps them."""

    def __repr__(self) -> str:
        return f"RecentTexts(texts={len(self._texts)}, unions={len(self._unions)})"

    def _check(self, needles: KeyIndex) -> None:
        if needles.size != self._size:  # new needles: an old id set may lack some
            self._texts.clear()
            self._unions.clear()
            self._one.clear()
            self._size = needles.size

    def ids(self, needles: KeyIndex, texts: tuple[str, ...]) -> frozenset[int] | None:
        """The ids found in ``texts`` by a recent scan, or ``None``."""
        self._check(needles)
        return self._texts.get(texts)

    def text_ids(self, needles: KeyIndex, text: str) -> frozenset[int]:
        """The ids found in ``text`` (``KeyIndex.found_text``): a later turn's depth window
        holds the messages of the turn before, shifted by one."""
        self._check(needles)
        got = self._one.get(text)
        if got is None:
            if len(self._one) >= MESSAGES_KEEP:
                self._one.clear()
            got = self._one[text] = frozenset(needles.found_text(text))
        return got

    def keep_ids(self, texts: tuple[str, ...], ids: frozenset[int]) -> frozenset[int]:
        """Remember ``ids`` as what ``texts`` hold (after ``ids`` missed); return it."""
        return _put(self._texts, texts, ids)

    def union(self, needles: KeyIndex, parts: tuple[frozenset[int], ...]) -> frozenset[int]:
        """The union of ``parts``, the same object for equal parts while it is kept."""
        self._check(needles)
        got = self._unions.get(parts)
        if got is None:
            got = _put(self._unions, parts, frozenset().union(*parts))
        return got

    def joined(self, texts: tuple[str, ...]) -> str:
        """``"\\n".join(texts)``, the same object for equal texts while it is kept (so its
        hash, once computed, is cached with it)."""
        got = self._joined.get(texts)
        if got is None:
            got = _put(self._joined, texts, "\n".join(texts))
        return got

    def __len__(self) -> int:
        """How many values are kept."""
        ids = len(self._texts) + len(self._unions) + len(self._one)
        return ids + len(self._joined) + len(self.assembled)

    def forget(self) -> None:
        """Drop everything (benchmarks measure scans of unseen text this way)."""
        self._texts.clear()
        self._unions.clear()
        self._joined.clear()
        self._one.clear()
        self.assembled.clear()


class Visit:
    """What ``FastScan.visit`` derived from one combination of found positions: their
    union, and facts about those positions for the nomination loop.

    The positions are picked from the mask as they are read: ``positions`` all of them,
    ``ahead`` only the first ones (the lazy candidates of a pass stop where the budget
    overflows, often a third of the way into a later turn's 2,400 visited positions), a
    window of the mask at a time, kept for the next reader of the same visit.

    Args:
        parts: the found positions of each configuration (kept alive with the result: it
            is looked up by their ids).
        mask: the union, a byte per position of the plan (not zero: visited).
        sets: what picks positions and codes from the mask (the plan's ``FoundSets``).
    """

    __slots__ = (
        "_all",
        "_sets",
        "built",
        "codes",
        "count",
        "eager",
        "head",
        "head_codes",
        "mask",
        "parts",
        "upto",
    )

    def __init__(self, parts: tuple[Found, ...], mask: bytearray, sets: FoundSets) -> None:
        self.parts = parts
        self.mask = mask
        self._sets = sets
        self._all: list[int] | None = None
        self.count = len(mask) - mask.count(0)
        """How many positions are visited."""
        self.head: list[int] = []
        """The first visited positions, ascending: those in ``mask[:upto]``."""
        self.head_codes = bytearray()
        """Their codes (``FastScan.codes``), in the same order."""
        self.upto = 0
        self.codes: bytes | None = None
        """Per position, how ``passes._nominate_fast`` decides it (set by its first use)."""
        self.eager: list[int] | None = None
        """The visited ``FULL`` positions and the ``PLAIN`` ones with regex keys (set by
        ``candidates.lazy_candidates``)."""
        self.built = False
        """Every position's entry object is built (``LazyEntries``): a scan that starts
        after this was found has them all in its list (objects, once built, stay)."""

    @property
    def positions(self) -> list[int]:
        """Every visited position, ascending."""
        got = self._all
        if got is None:
            size = len(self.mask)
            got = self._all = self.head if self.upto == size else self._sets.positions(self.mask)
        return got

    def take(self, positions: list[int], table: bytearray, every: Callable[[], bytes]) -> None:
        """Take ``positions``, every visited one (``found.listed``), as the head."""
        self._sets.ready(table, every)
        self.head = self._all = positions
        self.head_codes = bytearray(self._sets.codes_at(positions, table))
        self.upto = len(self.mask)

    def ahead(self, n: int, table: bytearray, every: Callable[[], bytes]) -> list[int]:
        """``head``, grown until it holds ``n`` positions or every one (the codes with it:
        ``table`` and ``every`` as ``FoundSets.codes`` takes them). Each window of the mask
        is sized for the positions still wanted at the mask's density, a quarter more."""
        mask, head, sets = self.mask, self.head, self._sets
        size = len(mask)
        if len(head) >= n or self.upto == size:
            return head
        sets.ready(table, every)
        while len(head) < n and self.upto < size and self.count:
            start = self.upto
            end = min(size, start + (n - len(head)) * size * 5 // (4 * self.count) + 8)
            new = sets.positions(mask, start, end)
            head += new
            self.head_codes += sets.codes_at(new, table)
            self.upto = end
        return head
