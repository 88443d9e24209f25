"""The persistent record store: SQLite (WAL), one transaction per ingest call or delete (F18).

The database holds the word table (word -> id) and the records with their token-id lists;
counts, totals, postings and the stop-word-dependent cache are derived and rebuilt in memory
on open (``store_load``). Each ingest call -- one exchange (``ingest``) or a batch
(``ingest_many``) -- writes its new words and its records in one transaction
(``store_write``) and only then updates memory, so a process killed at any moment leaves a
database that opens and holds every acknowledged exchange: an ingest call acknowledges its
records by returning, after the commit (WAL; ``synchronous=NORMAL`` is durable against
process crashes, ``FULL`` also against power loss). Per-query scores are never stored.

Several processes may share one store. Every ingest or delete takes the write lock first
(``BEGIN IMMEDIATE``, waiting up to the busy timeout), catches up with what the others
committed, and only then gives new words their ids, so ids never collide. Loading and
catching up read every table inside one read transaction (one snapshot). A store opened
``readonly`` never writes (``mode=ro``; no schema work, no checkpoint), so queries work on a
read-only or full filesystem.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable
from datetime import date, datetime
from pathlib import Path
from typing import Literal, Self

from worldinfo._collector import collector_paused
from worldinfo.sources.retriever import ExchangeData, Retrieval, Retriever
from worldinfo.sources.retriever_index import Record
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.store_errors import StoreError, typed_error
from worldinfo.sources.store_load import load_committed
from worldinfo.sources.store_open import connect_readonly, remove_database, use_wal
from worldinfo.sources.store_schema import (
    BUSY_TIMEOUT_S,
    FORMAT,
    USER_VERSION,
    migrate_schema,
    quick_check,
    rollback,
    validate_meta,
)
from worldinfo.sources.store_write import next_record_id, prepare, write_exchanges

log = logging.getLogger(__name__)


class SqliteStore(Retriever):
    """Records persisted in a SQLite database and mirrored in memory for queries."""

    def __init__(
        self,
        path: str | Path,
        *,
        settings: RetrieverSettings | None = None,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        readonly: bool = False,
        busy_timeout: float = BUSY_TIMEOUT_S,
        check: bool = True,
    ) -> None:
        """Open (or, unless ``readonly``, create) the store at ``path`` and load it.

        Args:
            path: the database file.
            settings: retriever settings; ``punctuation`` must match the stored one.
            synchronous: SQLite's ``synchronous`` level (see the module docstring).
            readonly: never write: the file must exist and be a store (queries).
            busy_timeout: seconds to wait for another process's lock.
            check: run the bounded structural check (``quick_check``) before loading.

        Raises:
            StoreError: the file is not a store of this format or tokeniser mode; the
                subclasses say why it could not be opened (missing, damaged, busy, unwritable).
        """
        super().__init__(settings=settings)
        self.path = Path(path)
        self.readonly = readonly
        self._data_version = -1
        self._max_id = 0
        self._next_id: int | None = None  # valid while no other process has committed
        try:
            if readonly:
                self._db = connect_readonly(self.path, timeout=busy_timeout)
            else:
                self._db = sqlite3.connect(self.path, isolation_level=None, timeout=busy_timeout)
        except sqlite3.Error as exc:
            raise typed_error(exc, self.path, doing="open the store") from exc
        try:
            if not readonly:
                use_wal(self._db, timeout=busy_timeout)
                self._db.execute(f"PRAGMA synchronous={synchronous}")
                migrate_schema(self._db, punctuation=self.settings.punctuation)
            self._db.execute("BEGIN")
            try:
                if check:
                    quick_check(self._db, self.path)
                validate_meta(self._db, self.path, punctuation=self.settings.punctuation)
                self._catch_up()
            finally:
                rollback(self._db)
        except sqlite3.Error as exc:
            self._db.close()
            raise typed_error(exc, self.path, doing="open the store", damaged=True) from exc
        except BaseException:
            self._db.close()
            raise
        log.debug("loaded %s records, %s words from %s", len(self), len(self.index.words), path)

    def _catch_up(self) -> None:
        """Apply what was committed since the last look (inside a transaction: one snapshot)."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version == self._data_version:
            return
        self._max_id = load_committed(self._db, self.index, path=self.path, after=self._max_id)
        self._next_id = None
        self.index.sync()
        self._data_version = version

    def refresh(self) -> None:
        """Load what other processes committed since this store last looked (one snapshot).

        Raises:
            StoreError: as on open.
        """
        try:
            if self._db.execute("PRAGMA data_version").fetchone()[0] == self._data_version:
                return
            self._db.execute("BEGIN")
            try:
                self._catch_up()
            finally:
                rollback(self._db)
        except sqlite3.Error as exc:
            raise typed_error(exc, self.path, doing="read the store", damaged=True) from exc

    def retrieve(
        self,
        message: str,
        previous_reply: str = "",
        *,
        lore: frozenset[str] = frozenset(),
        top: int = 1,
        reference: bool = False,
        now: datetime | date | None = None,
    ) -> Retrieval:
        """Retrieve after catching up with other writers (see ``Retriever.retrieve``)."""
        self.refresh()
        return super().retrieve(
            message, previous_reply, lore=lore, top=top, reference=reference, now=now
        )

    def _write_lock(self, doing: str) -> None:
        if self.readonly:
            raise StoreError(f"{self.path}: opened read-only: cannot {doing}")
        self._db.execute("BEGIN IMMEDIATE")
        self._catch_up()

    def ingest(
        self, user: str, reply: str, *, source_ref: str, timestamp: object = None
    ) -> Record | None:
        """Store one finished exchange in one transaction (F15, F18).

        Args:
            user: the user's text.
            reply: the character's reply.
            source_ref: the exchange's identity; a second ingest with it is a no-op.
            timestamp: when it happened (any form of ``timestamps.parse_timestamp``), or
                ``None``.

        Returns:
            The new record (committed), or ``None`` if skipped.

        Raises:
            StoreError: the exchange could not be stored (a subclass says why); the store
                and this object are unchanged.
            TimestampError: ``timestamp`` is in no accepted form (nothing is written).
        """
        return self._store([(user, reply, source_ref, timestamp)])[0]

    def ingest_many(self, exchanges: Iterable[ExchangeData]) -> list[Record | None]:
        """Store many finished exchanges in ONE transaction: all are committed, or none.

        Returning acknowledges every record at once, after the commit (a process killed during
        the call stored none). Other writers wait for the batch's write lock: callers ingest
        long histories in chunks (``ChatSync`` commits 500 exchanges at a time).

        Args:
            exchanges: the exchanges, oldest first (``retriever_chat.Exchange`` or any
                object with ``source_ref``, ``user``, ``reply`` and ``timestamp``).

        Returns:
            One result per exchange, in order: the new record, or ``None`` if skipped
            (a system exchange, already stored, or a repeat of an earlier one in the batch).

        Raises:
            StoreError: the batch could not be stored (a subclass says why); the store and
                this object are unchanged.
            TimestampError: a timestamp is in no accepted form (nothing is written).
        """
        items = [(ex.user, ex.reply, ex.source_ref, ex.timestamp) for ex in exchanges]
        with collector_paused():  # no cycles made: no collection to walk them
            return self._store(items)

    def _store(self, items: list[tuple[str, str, str, object]]) -> list[Record | None]:
        index, db = self.index, self._db
        wanted, batch = prepare(items, index, punctuation=self.settings.punctuation)
        if not batch.exchanges:
            return [None] * len(items)
        first = -1
        try:
            self._write_lock("store an exchange" if len(items) == 1 else "store exchanges")
            try:
                first = len(index.words)
                batch = batch.without(index.by_ref)  # another process stored some
                if self._next_id is None:
                    self._next_id = next_record_id(db)
                records = write_exchanges(db, index, batch, first_id=self._next_id)
                db.execute("COMMIT")
            except BaseException:
                rollback(db)
                self._next_id = None
                if first >= 0:
                    index.forget_words(first)
                raise
        except sqlite3.Error as exc:
            todo = batch.exchanges
            ref = todo[0].source_ref[:80] if todo else "?"
            rest = f" (and the {len(todo) - 1} after it)" if len(todo) > 1 else ""
            raise typed_error(exc, self.path, doing=f"store exchange {ref!r}{rest}") from exc
        index.add_many(records)
        if records:
            self._max_id = max(self._max_id, records[-1].id)
            self._next_id = records[-1].id + 1
        got = {rec.source_ref: rec for rec in records}
        return [None if ref is None else got.get(ref) for ref in wanted]

    def delete(self, source_ref: str) -> bool:
        """Delete an exchange's record in one transaction and decrement its counts (F16).

        Raises:
            StoreError: the record could not be deleted; the store is unchanged.
        """
        if source_ref not in self.index.by_ref:
            return False
        db = self._db
        try:
            self._write_lock("delete an exchange")
            try:
                rid = self.index.by_ref.get(source_ref)
                if rid is not None:
                    db.execute("DELETE FROM records WHERE id = ?", (rid,))
                db.execute("COMMIT")
            except BaseException:
                rollback(db)
                raise
        except sqlite3.Error as exc:
            raise typed_error(exc, self.path, doing=f"delete {source_ref[:80]!r}") from exc
        if rid is None:
            return False
        self.index.remove(rid)
        return True

    def seal(self) -> None:
        """Move everything into the main file and leave WAL mode (the file stands alone).

        The next writer that opens it turns WAL on again. Used before a built store is
        moved into place.

        Raises:
            StoreError: the WAL could not be written back (e.g. disk full).
        """
        try:
            mode = self._db.execute("PRAGMA journal_mode=DELETE").fetchone()[0]
        except sqlite3.Error as exc:
            raise typed_error(exc, self.path, doing="finish the store") from exc
        if str(mode).lower() != "delete":
            raise StoreError(f"{self.path}: could not finish the store (journal mode {mode})")

    def close(self) -> None:
        """Close the connection (the last writer to close folds the WAL into the file)."""
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "BUSY_TIMEOUT_S",
    "FORMAT",
    "USER_VERSION",
    "SqliteStore",
    "StoreError",
    "migrate_schema",
    "remove_database",
]
