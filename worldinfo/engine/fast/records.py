"""Finding the entry of a timed-effect record on the fast path (``Plan.find_record``).

A record names its entry by ``String(hash)``: the first entry (in entry order) whose hash
reads so (R62). The straightforward path hashes every entry; a plan hashes only the entries
it must, and indexes them by hash in ``Plan.by_hash`` under one invariant: every position
listed under a hash there is all the positions with that hash (delayed and sticky entries
are looked up there, ``scan.hash_positions``).

Entries with equal hashes have equal JSON text (barring a cyrb53 collision, ``port.yaml``),
so equal ``world`` and ``uid``: the entries under a record's ``"world.uid"`` key are the
place to look, but listing them takes a key index of every entry (0.5 ms for 5,000).
Most records were written by a scan of the same plan, for an entry it hashed then
(``Plan.hashed_at``). When its ``world`` and ``uid`` are plain (``_plain``: every entry
with its hash has its key) and no two entries of the plan share a key (``distinct_keys``),
that entry is the only one with its hash, so it is the answer and is indexed alone,
without the key index. Whether keys are distinct is read off the plan's keys
(``learn_keys``: a set of them, or the key index once built) and kept on the book
(``Book.derived``): a later plan of the same book (another session, other settings) knows
it without any pass over its entries.
"""

from __future__ import annotations

import math

from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.trust import book_has_untrusted
from worldinfo.types import Book

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Protocol

    class Plan(Protocol):
        """What this module reads and writes of a ``plan.Plan`` (which calls it: a
        protocol, so that this module does not import the plan's)."""

        keys: list[str]
        books: tuple[Book | None, ...]
        by_hash: dict[int, list[int]]
        hashed_at: dict[int, int]
        keys_distinct: bool | None
        key_ids: list[int] | None
        indexed: bytearray
        indexed_keys: set[str]
        odd_indexed: bool
        all_hashed: bool

        @property
        def entries(self) -> Sequence[Mapping[str, JSONValue]]: ...
        def positions_of_key(self, key: str) -> list[int]: ...
        def ensure_hash(self, pos: int) -> int: ...
        def ensure_all_hashes(self) -> None: ...


_FACT = "distinct_keys"
"""``Book.derived`` key of ``learn_keys``'s answer for a plan of the book alone."""


def learn_keys(plan: Plan, *, distinct: bool) -> None:
    """Record whether no two entries of ``plan`` share a key (``distinct``), on the plan
    and, for a plan of one book alone, on the book."""
    plan.keys_distinct = distinct
    book = _only_book(plan)
    if book is not None:
        book.derived[_FACT] = distinct


def distinct_keys(plan: Plan, *, learn: bool = False) -> bool:
    """Is it known that no two entries of ``plan`` share a key (``learn_keys``)? From the
    plan once its key index is built, else from its book when the plan is of one book
    alone, else (``learn``) from a set of its keys (of their integer uids when they are one
    book name and a uid each: a quarter of the cost), a third cheaper than the key index;
    ``False`` when not known."""
    if plan.keys_distinct is None:
        book = _only_book(plan)
        known = book.derived.get(_FACT) if book is not None else None
        if isinstance(known, bool):
            plan.keys_distinct = known
        elif learn:  # distinct integers make distinct ``%d`` strings after one prefix
            ids = plan.keys if plan.key_ids is None else plan.key_ids
            learn_keys(plan, distinct=len(set(ids)) == len(ids))
        else:
            return False
    return plan.keys_distinct is True


def _only_book(plan: Plan) -> Book | None:
    """The one book whose entries (all of them, once, trusted) are the plan's, if any: its
    entries' keys are then the plan's, whatever the settings."""
    books = [b for b in plan.books if b is not None]
    if len(books) != 1 or len(books[0].entries or ()) != len(plan.keys):
        return None
    return None if book_has_untrusted(books[0]) else books[0]


def find_record(plan: Plan, key: str, text: str) -> int | None:
    """Position of the first entry whose ``String(hash)`` is ``text``, for the timed effect
    recorded under ``key``: from ``by_hash`` when indexed, else the entry hashed with it
    when no other can have its hash (plain, keys distinct), else the entries under ``key``
    are hashed first, and only when none of them has the hash is every entry hashed (a
    record of another entry)."""
    if not (text.isascii() and text.isdigit()) or (len(text) > 1 and text[0] == "0"):
        return None  # hashes are integers below 2**53: their strings are plain decimals
    h = int(text)
    got = plan.by_hash.get(h)
    if got:
        return got[0]
    if plan.all_hashed:
        return None
    pos = plan.hashed_at.get(h)
    if pos is not None and (plan.keys_distinct or distinct_keys(plan)) and _plain(plan, pos):
        plan.indexed[pos] = 1  # not indexed before: ``by_hash`` would list it
        plan.by_hash[h] = [pos]
        return pos
    index_key(plan, key)
    got = plan.by_hash.get(h)
    if not got:
        plan.ensure_all_hashes()
        got = plan.by_hash.get(h)
    return got[0] if got else None


def index_position(plan: Plan, pos: int) -> None:
    """Index by hash every entry with the hash of the entry at ``pos``: that entry alone
    when it is plain and keys are distinct, else those under its key (``index_key``)."""
    if plan.all_hashed or plan.indexed[pos]:
        return
    if not (distinct_keys(plan) and _plain(plan, pos)):
        index_key(plan, plan.keys[pos])
        return
    plan.indexed[pos] = 1
    plan.by_hash.setdefault(plan.ensure_hash(pos), []).append(pos)


def index_key(plan: Plan, key: str) -> None:
    """Hash the entries whose ``"world.uid"`` is ``key`` and index them by hash.

    Only a ``world`` or ``uid`` whose JSON text does not decide its ``String`` (``null``,
    ``NaN``, arrays, ...) is not plain: equal hashes do not make equal keys there, so those
    entries are indexed together. So every position listed under a hash in ``by_hash`` is
    all the positions with that hash.
    """
    if plan.all_hashed or key in plan.indexed_keys:
        return
    plan.indexed_keys.add(key)
    positions = plan.positions_of_key(key)
    if not plan.odd_indexed and not all(_plain(plan, p) for p in positions):
        plan.odd_indexed = True
        odd = [p for p in range(len(plan.entries)) if not _plain(plan, p)]
        positions = sorted(set(positions) | set(odd))
    for pos in positions:
        if not plan.indexed[pos]:
            plan.indexed[pos] = 1
            plan.by_hash.setdefault(plan.ensure_hash(pos), []).append(pos)


def _plain(plan: Plan, pos: int) -> bool:
    """Are the ``world`` and ``uid`` of the entry at ``pos`` plain (``_plain_id``)? Then
    every entry with its hash has its key: a value whose JSON text is a plain value's has
    that value's ``String``."""
    e = plan.entries[pos]
    return _plain_id(e.get("world", UNDEFINED)) and _plain_id(e.get("uid", UNDEFINED))


def _plain_id(value: JSONValue) -> bool:
    """Is ``value``'s JSON text one-to-one with its ``String`` (strings, booleans,
    ``undefined``, finite numbers)?"""
    if isinstance(value, float):
        return math.isfinite(value)
    return value is UNDEFINED or isinstance(value, (str, int))
