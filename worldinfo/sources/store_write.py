"""Writing new exchanges to the SQLite store: a whole batch inside the caller's transaction.

A batch costs two ``executemany`` statements (its new words, its records) whatever its size,
so the per-exchange cost is the tokenising and the index update, not SQLite round trips. The
batch is tokenised in one pass (``tokenize_batch``), its word ids come from one dictionary
pass over that one list, and its token blobs are slices of one ``tobytes``.
New words get their ids in order of first appearance across the batch, user text before
reply, exchange by exchange: the ids one-by-one ingests would give. Record ids continue
``AUTOINCREMENT``'s sequence (the largest id ever used + 1), so ids are never reused.
"""

from __future__ import annotations

import itertools
import sqlite3
from array import array
from collections.abc import Container, Sequence
from datetime import datetime
from typing import NamedTuple

from worldinfo.sources.retriever import is_system_exchange
from worldinfo.sources.retriever_index import IDS, Record, RetrieverIndex
from worldinfo.sources.retriever_settings import Punctuation
from worldinfo.sources.retriever_tokenize import tokenize_batch
from worldinfo.sources.store_schema import blob
from worldinfo.sources.timestamps import optional_timestamp

_INSERT_WORDS = "INSERT INTO words (id, word) VALUES (?, ?)"
_RECORD_COLUMNS = "id, source_ref, user, reply, user_tokens, reply_tokens"
"""A record without a timestamp leaves the column out (NULL by default): ``sqlite3`` binds
``str``, ``int`` and ``bytearray`` directly but looks every ``None`` or ``bytes`` parameter up
as a type to adapt, a failed attribute lookup each; so the blobs are ``bytearray`` too."""
_ROWS_PER_INSERT = 100
"""Records per ``INSERT ... VALUES (...), (...)`` statement: one statement run (and one
update of ``AUTOINCREMENT``'s sequence) per 100 rows instead of per row; 700 parameters at
most, below the 999 of the oldest SQLite builds."""


_NEXT_ID = (
    "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'records'), 0),"
    " coalesce((SELECT max(id) FROM records), 0)) + 1"
)


class NewExchange(NamedTuple):
    """An exchange to store (a tuple: cheap); its tokens are in the batch's word list."""

    source_ref: str
    user: str
    reply: str
    timestamp: datetime | None


class NewBatch(NamedTuple):
    """Exchanges to store, tokenised together before the write lock is taken.

    ``words`` and ``cuts`` are ``tokenize_batch`` of the texts user, reply, user, reply, ...
    of ``exchanges`` in order.
    """

    exchanges: list[NewExchange]
    words: list[str]
    cuts: list[int]
    punctuation: Punctuation

    def without(self, refs: Container[str]) -> NewBatch:
        """The batch minus the exchanges whose ``source_ref`` is in ``refs`` (re-tokenised)."""
        kept = [ex for ex in self.exchanges if ex.source_ref not in refs]
        if len(kept) == len(self.exchanges):
            return self
        return _tokenised(kept, punctuation=self.punctuation)


def _tokenised(exchanges: list[NewExchange], *, punctuation: Punctuation) -> NewBatch:
    texts = [text for ex in exchanges for text in (ex.user, ex.reply)]
    words, cuts = tokenize_batch(texts, punctuation=punctuation)
    return NewBatch(exchanges, words, cuts, punctuation)


def prepare(
    items: Sequence[tuple[str, str, str, object]],
    index: RetrieverIndex,
    *,
    punctuation: Punctuation,
) -> tuple[list[str | None], NewBatch]:
    """Check and tokenise ``(user, reply, source_ref, timestamp)`` items before the lock.

    Returns:
        Per item its ``source_ref`` if it is to be stored, else ``None`` (a system exchange,
        already stored, or a repeat within the items); and the batch to store.

    Raises:
        TimestampError: a timestamp is in no accepted form (checked for every item first).
    """
    wanted: list[str | None] = []
    seen: set[str] = set()
    kept: list[NewExchange] = []
    stored = index.by_ref
    for user, reply, ref, stamp in items:
        when = optional_timestamp(stamp)
        if ref in stored or ref in seen or is_system_exchange(user):
            wanted.append(None)
            continue
        wanted.append(ref)
        seen.add(ref)
        kept.append(NewExchange(ref, user, reply, when))
    return wanted, _tokenised(kept, punctuation=punctuation)


def next_record_id(db: sqlite3.Connection) -> int:
    """The id ``AUTOINCREMENT`` would give the next record (never one used before)."""
    row = db.execute(_NEXT_ID).fetchone()
    return int(row[0])


def write_exchanges(
    db: sqlite3.Connection, index: RetrieverIndex, batch: NewBatch, *, first_id: int
) -> list[Record]:
    """Insert the batch's new words and its records; return the records (not yet indexed).

    Runs under the caller's write lock, after it caught up with other writers. The new
    words are added to ``index``'s word table (count 0) so their ids are taken; if the
    transaction is not committed, the caller undoes that with ``index.forget_words``.
    The records get ids from ``first_id`` on (``next_record_id``, which the caller may keep
    from its last write while no other process has committed).

    Raises:
        sqlite3.Error: as SQLite raises it (the caller types it).
    """
    first = len(index.words)
    cuts = batch.cuts
    ids = _ids(index, batch.words, separators=cuts[1:-1])
    raw = bytearray(blob(ids))  # every token blob is a slice of this one
    records: list[Record] = []
    rows: list[tuple[object, ...]] = []
    stamped: list[tuple[object, ...]] = []
    halves = zip(batch.exchanges, itertools.count(first_id), cuts[::2], cuts[1::2], cuts[2::2])
    for ex, rid, a, b, c in halves:  # user tokens at a+1..b-1, reply tokens at b+1..c-1
        when = ex.timestamp
        records.append(
            Record(
                id=rid,
                source_ref=ex.source_ref,
                user=ex.user,
                reply=ex.reply,
                user_tokens=ids[a + 1 : b],
                reply_tokens=ids[b + 1 : c],
                timestamp=when,
            )
        )
        row = (
            rid,
            ex.source_ref,
            ex.user,
            ex.reply,
            raw[4 * a + 4 : 4 * b],
            raw[4 * b + 4 : 4 * c],
        )
        if when is None:
            rows.append(row)
        else:
            stamped.append((*row, when.isoformat()))
    if len(index.words) > first:
        db.executemany(_INSERT_WORDS, zip(itertools.count(first), index.words[first:]))
    _insert_records(db, rows, columns=_RECORD_COLUMNS)
    _insert_records(db, stamped, columns=f"{_RECORD_COLUMNS}, timestamp")
    return records


def _insert_records(
    db: sqlite3.Connection, rows: list[tuple[object, ...]], *, columns: str
) -> None:
    """Insert ``rows`` (values of ``columns``, in order) into ``records``, many per statement."""
    marks = f"({', '.join('?' * (columns.count(',') + 1))})"
    for at in range(0, len(rows), _ROWS_PER_INSERT):
        part = rows[at : at + _ROWS_PER_INSERT]
        db.execute(
            f"INSERT INTO records ({columns}) VALUES {', '.join([marks] * len(part))}",
            list(itertools.chain.from_iterable(part)),
        )


def _ids(index: RetrieverIndex, words: list[str], *, separators: list[int]) -> array[int]:
    """Word ids of ``words`` (0 at the ``separators``); a new word gets the next id where it
    first appears.

    One dictionary pass over the whole batch, an unknown word giving ``_NEW`` (no valid id:
    ids stay below 2**31). Those positions are found by a byte search of the array (every
    4-byte window of ``FF``s at a multiple of 4 is one), and only they are visited one by one.
    """
    ids = array(IDS, map(index.word_ids.get, words, itertools.repeat(_NEW)))
    for at in separators:
        ids[at] = 0
    raw = ids.tobytes()
    new_at = []
    at = raw.find(_NEW_BYTES)
    while at >= 0:
        if at % 4 == 0:
            new_at.append(at // 4)
            at = raw.find(_NEW_BYTES, at + 4)
        else:
            at = raw.find(_NEW_BYTES, at + 1)
    if new_at:
        index.add_words(map(words.__getitem__, new_at))  # ids by first appearance
        word_ids = index.word_ids
        for i in new_at:
            ids[i] = word_ids[words[i]]
    return ids


_NEW = 2**32 - 1
_NEW_BYTES = array(IDS, [_NEW]).tobytes()
