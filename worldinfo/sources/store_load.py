"""Loading the SQLite store into memory: what was committed since the last look (F18).

``load_committed`` runs inside the caller's transaction (one snapshot): on open, before a
query, and under the write lock before an ingest or delete. It adds the new words (their
ids must continue the table), the records past the last id seen (their token ids must be
known words) and drops the records another process deleted.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

from worldinfo.sources.retriever_index import Record, RetrieverIndex
from worldinfo.sources.store_errors import StoreCorruptError, salvage_hint
from worldinfo.sources.store_schema import has_timestamps, tokens_of

_CHUNK = 2_000
"""Records handed to the index at a time while loading (bounds the batch held twice)."""


def load_committed(db: sqlite3.Connection, index: RetrieverIndex, *, path: Path, after: int) -> int:
    """Bring ``index`` up to the committed tables; return the last record id now loaded.

    Args:
        db: the store's connection, inside a transaction.
        index: the in-memory mirror to update.
        path: the store's file (for messages).
        after: the last record id already loaded.

    Raises:
        StoreCorruptError: word ids are not contiguous, a record names an unknown word or
            holds a malformed timestamp.
        sqlite3.Error: as SQLite raises it (the caller types it).
    """
    known = len(index.words)
    for wid, word in db.execute("SELECT id, word FROM words WHERE id >= ? ORDER BY id", (known,)):
        if index.word_id(word) != wid:
            raise StoreCorruptError(
                f"{path}: word ids are not contiguous at {wid}; {salvage_hint(path)}"
            )
    n_words = len(index.words)
    stamps = "timestamp" if has_timestamps(db) else "NULL"
    rows = db.execute(
        f"SELECT id, source_ref, user, reply, user_tokens, reply_tokens, {stamps}"
        " FROM records WHERE id > ? ORDER BY id",
        (after,),
    )
    batch: list[Record] = []
    for rid, ref, user, reply, ub, rb, stamp in rows:
        ut, rt = tokens_of(ub), tokens_of(rb)
        if any(t and (min(t) < 0 or max(t) >= n_words) for t in (ut, rt)):
            raise StoreCorruptError(
                f"{path}: record {rid} refers to an unknown word; {salvage_hint(path)}"
            )
        rec = Record(
            id=rid,
            source_ref=ref,
            user=user,
            reply=reply,
            user_tokens=ut,
            reply_tokens=rt,
            timestamp=_stored_timestamp(stamp, path, rid),
        )
        batch.append(rec)
        if len(batch) >= _CHUNK:
            index.add_many(batch)
            batch.clear()
        after = rid
    index.add_many(batch)
    if db.execute("SELECT count(*) FROM records").fetchone()[0] != len(index):
        live = {rid for (rid,) in db.execute("SELECT id FROM records")}
        for rid in [rid for rid in index.records if rid not in live]:
            index.remove(rid)
    return after


def _stored_timestamp(value: object, path: Path, rid: int) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        raise StoreCorruptError(
            f"{path}: record {rid} has a malformed timestamp {value!r}; {salvage_hint(path)}"
        ) from None
