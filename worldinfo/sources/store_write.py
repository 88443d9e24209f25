"""Writing new exchanges to the SQLite store: a whole batch inside the caller's transaction.

A batch costs two ``executemany`` statements (its new words, its records) whatever its size,
so the per-exchange cost is the tokenising and the index update, not SQLite round trips.
New words get their ids in order of first appearance across the batch, user text before
reply, exchange by exchange: the ids one-by-one ingests would give. Record ids continue
``AUTOINCREMENT``'s sequence (the largest id ever used + 1), so ids are never reused.
"""

from __future__ import annotations

import itertools
import operator
import sqlite3
from array import array
from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from worldinfo.sources.retriever import is_system_exchange
from worldinfo.sources.retriever_index import Record, RetrieverIndex
from worldinfo.sources.retriever_settings import Punctuation
from worldinfo.sources.retriever_tokenize import tokenize_many
from worldinfo.sources.store_schema import blob
from worldinfo.sources.timestamps import optional_timestamp

_INSERT_WORDS = "INSERT INTO words (id, word) VALUES (?, ?)"
_INSERT_RECORDS = (
    "INSERT INTO records (id, source_ref, user, reply, user_tokens, reply_tokens, timestamp)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)

_NEXT_ID = (
    "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'records'), 0),"
    " coalesce((SELECT max(id) FROM records), 0)) + 1"
)


class NewExchange(NamedTuple):
    """An exchange to store, tokenised before the write lock is taken (a tuple: cheap)."""

    source_ref: str
    user: str
    reply: str
    timestamp: datetime | None
    user_words: list[str]
    reply_words: list[str]


def prepare(
    items: Sequence[tuple[str, str, str, object]],
    index: RetrieverIndex,
    *,
    punctuation: Punctuation,
) -> tuple[list[str | None], list[NewExchange]]:
    """Check and tokenise ``(user, reply, source_ref, timestamp)`` items before the lock.

    Returns:
        Per item its ``source_ref`` if it is to be stored, else ``None`` (a system exchange,
        already stored, or a repeat within the items); and the exchanges to store.

    Raises:
        TimestampError: a timestamp is in no accepted form (checked for every item first).
    """
    wanted: list[str | None] = []
    seen: set[str] = set()
    kept: list[tuple[str, str, str, datetime | None]] = []
    stored = index.by_ref
    for user, reply, ref, stamp in items:
        when = optional_timestamp(stamp)
        if ref in stored or ref in seen or is_system_exchange(user):
            wanted.append(None)
            continue
        wanted.append(ref)
        seen.add(ref)
        kept.append((ref, user, reply, when))
    words = tokenize_many(
        [text for _, user, reply, _ in kept for text in (user, reply)], punctuation=punctuation
    )
    batch = [
        NewExchange(ref, user, reply, when, words[2 * k], words[2 * k + 1])
        for k, (ref, user, reply, when) in enumerate(kept)
    ]
    return wanted, batch


def next_record_id(db: sqlite3.Connection) -> int:
    """The id ``AUTOINCREMENT`` would give the next record (never one used before)."""
    row = db.execute(_NEXT_ID).fetchone()
    return int(row[0])


def write_exchanges(
    db: sqlite3.Connection, index: RetrieverIndex, batch: Sequence[NewExchange], *, first_id: int
) -> list[Record]:
    """Insert the batch's new words and its records; return the records (not yet indexed).

    Runs under the caller's write lock, after it caught up with other writers. The new
    words are added to ``index``'s word table (count 0) so their ids are taken; if the
    transaction is not committed, the caller undoes that with ``index.forget_words``.
    The records get ids from ``first_id`` on (``next_record_id``, which the caller may keep
    from its last write while no other process has committed).

    Raises:
        sqlite3.Error: as SQLite raises it (the caller rolls back and types it).
    """
    first = len(index.words)
    halves = itertools.chain.from_iterable((ex.user_words, ex.reply_words) for ex in batch)
    ids = _ids(index, list(itertools.chain.from_iterable(halves)))
    records: list[Record] = []
    at = 0
    for k, ex in enumerate(batch):
        mid = at + len(ex.user_words)
        end = mid + len(ex.reply_words)
        records.append(
            Record(
                id=first_id + k,
                source_ref=ex.source_ref,
                user=ex.user,
                reply=ex.reply,
                user_tokens=ids[at:mid],
                reply_tokens=ids[mid:end],
                timestamp=ex.timestamp,
            )
        )
        at = end
    if len(index.words) > first:
        db.executemany(_INSERT_WORDS, zip(itertools.count(first), index.words[first:]))
    db.executemany(
        _INSERT_RECORDS,
        [
            (
                r.id,
                r.source_ref,
                r.user,
                r.reply,
                blob(r.user_tokens),
                blob(r.reply_tokens),
                r.timestamp and r.timestamp.isoformat(),
            )
            for r in records
        ],
    )
    return records


def _ids(index: RetrieverIndex, words: list[str]) -> array[int]:
    """Word ids of ``words``; a new word gets the next id where it first appears.

    One dictionary pass over the whole batch; only the positions of new words (rare once a
    chat has some history) are visited one by one.
    """
    known = index.word_ids
    ids = list(map(known.get, words))
    out = array("i")
    try:
        out.fromlist(ids)  # type: ignore[arg-type]  # raises on a None (a new word)
    except TypeError:
        new_at = list(itertools.compress(range(len(ids)), map(operator.is_, ids, _NONES)))
        for i in new_at:
            ids[i] = index.word_id(words[i])
        out.fromlist(ids)  # type: ignore[arg-type]  # no None left
    return out


_NONES = itertools.repeat(None)
