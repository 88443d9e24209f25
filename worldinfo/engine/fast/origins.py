"""Where a plan's entries come from, as columns: each position's book entry, book name and
hash memo cell (``Origins``), and the hash memo of one book version (``BookMemo``).

A plan is built with the collector paused (``cache.ScanCache.plan``), so what the build
leaves is young and the first collection after the scan walks all of it: a tuple and a
memo list per entry were two containers an entry (10^4 for a 5,000-entry book). Columns
are a few containers whatever the book's size, and the hashes sit in an ``array`` (which
the collector never tracks). An entry's hash is kept by its ``Entry`` object and book name:
``BookMemo.after`` carries the known hashes over to the next version of a book, for the
``Entry`` objects it keeps.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import chain, repeat
from operator import is_

from worldinfo._record import record
from worldinfo.types import Book, Entry

UNHASHED = -1
"""A memo cell whose hash is not known yet (a hash is ``cyrb53``: an integer in [0, 2**53))."""


def _unhashed(n: int) -> array[int]:
    return array("q", (UNHASHED,)) * n


@record
class BookMemo:
    """One version of a book (a ``Book`` object) as plans read it: its entries, the name
    their decorated objects carry (``world``), and each entry's hash once known."""

    book: Book
    entries: Sequence[Entry]
    world: str
    hashes: array[int]
    """``UNHASHED`` or the hash of the entry at the same index (``'q'``)."""

    @classmethod
    def after(cls, book: Book, previous: BookMemo | None) -> BookMemo:
        """The memo of ``book`` (with ``entries``), holding the hashes ``previous`` (the
        memo of the version before it under the same name, if any) knows of the ``Entry``
        objects both hold, where the book name is the same (the hash covers ``world``)."""
        entries = book.entries or ()
        hashes = _unhashed(len(entries))
        memo = cls(book=book, entries=entries, world=book.name, hashes=hashes)
        if previous is None or previous.world != book.name:
            return memo
        old = previous.hashes
        if old.count(UNHASHED) == len(old):
            return memo
        known = [i for i, h in enumerate(old) if h != UNHASHED]
        # ``previous`` holds its entries: an equal ``id`` is the same object
        by_id = {id(previous.entries[i]): old[i] for i in known}
        for i, h in enumerate(map(by_id.get, map(id, entries), repeat(UNHASHED))):
            if h != UNHASHED:
                hashes[i] = h
        return memo


@record
class Origins:
    """Each position's book entry, book name, and the memo array and index its hash is kept
    at (``memos[pos][cells[pos]]``, shared by the plans of one book version)."""

    entries: Sequence[Entry]
    worlds: list[str]
    memos: list[array[int]]
    cells: Sequence[int]
    """An ``array`` ('q'), or ``range(n)`` for the entries of one book in their order."""
    shared: BookMemo | None = None
    """The book version of every position, if one is (set by ``of`` and ``taken``)."""

    @classmethod
    def of(cls, memos: Sequence[BookMemo]) -> Origins:
        """The entries of these book versions one after the other (an entry of a book
        selected twice is there twice, with one memo cell)."""
        if len(memos) == 1:
            (one,) = memos
            n = len(one.entries)
            return cls(
                entries=one.entries,
                worlds=[one.world] * n,
                memos=[one.hashes] * n,
                cells=range(n),
                shared=one,
            )
        sizes = [len(m.entries) for m in memos]
        return cls(
            entries=list(chain.from_iterable(m.entries for m in memos)),
            worlds=list(chain.from_iterable(map(repeat, (m.world for m in memos), sizes))),
            memos=list(chain.from_iterable(map(repeat, (m.hashes for m in memos), sizes))),
            cells=array("q", chain.from_iterable(map(range, sizes))),
        )

    def __len__(self) -> int:
        return len(self.entries)

    def taken(self, order: Sequence[int]) -> Origins:
        """The origins at the indices ``order``, in that order."""
        worlds, memos, cells = self.worlds, self.memos, self.cells
        n = len(order)
        shared = self.shared
        one = shared is not None and bool(worlds)  # one book version: one name, one memo
        one_world = one or (bool(worlds) and worlds.count(worlds[0]) == len(worlds))
        one_memo = one or (bool(memos) and all(map(is_, memos, repeat(memos[0]))))  # not ``==``
        return Origins(
            entries=list(map(self.entries.__getitem__, order)),
            worlds=[worlds[0]] * n if one_world else list(map(worlds.__getitem__, order)),
            memos=[memos[0]] * n if one_memo else list(map(memos.__getitem__, order)),
            cells=array("q", order)  # cells[i] is i
            if cells == range(len(cells))
            else array("q", map(cells.__getitem__, order)),
            shared=shared,
        )
