"""The persistent record store: SQLite (WAL), one transaction per ingest or delete (F18).

The database holds the word table (word -> id) and the records with their token-id lists;
counts, totals, postings and the stop-word-dependent cache are derived and rebuilt in memory
on open. Each ingest writes its new words and its record in one transaction and only then
updates memory, so a process killed at any moment leaves a database that opens and holds
every acknowledged exchange (WAL; ``synchronous=NORMAL`` is durable against process
crashes, ``FULL`` also against power loss). Per-query scores are never stored.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
from array import array
from datetime import datetime
from pathlib import Path
from typing import Literal, Self

from worldinfo.sources.retriever import Retriever, is_system_exchange
from worldinfo.sources.retriever_index import Record
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.timestamps import optional_timestamp

log = logging.getLogger(__name__)

FORMAT = "worldinfo-chat-memory/1"
USER_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS words (id INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source_ref TEXT NOT NULL UNIQUE,
    user TEXT NOT NULL,
    reply TEXT NOT NULL,
    user_tokens BLOB NOT NULL,
    reply_tokens BLOB NOT NULL
);
"""


def migrate_v1_add_timestamps(db: sqlite3.Connection) -> None:
    """Schema v1 -> v2: a nullable ``timestamp`` per record (ISO 8601 text, NULL = unknown).

    Runs inside the caller's open transaction; records stored before keep NULL.
    """
    db.execute("ALTER TABLE records ADD COLUMN timestamp TEXT")
    db.execute("PRAGMA user_version=2")


class StoreError(Exception):
    """The database is not a chat-memory store this version can read."""


def _blob(tokens: array[int]) -> bytes:
    if sys.byteorder == "big":  # pragma: no cover - stored little-endian everywhere
        tokens = array("i", tokens)
        tokens.byteswap()
    return tokens.tobytes()


def _tokens(blob: bytes) -> array[int]:
    out = array("i")
    out.frombytes(blob)
    if sys.byteorder == "big":  # pragma: no cover
        out.byteswap()
    return out


class SqliteStore(Retriever):
    """Records persisted in a SQLite database and mirrored in memory for queries."""

    def __init__(
        self,
        path: str | Path,
        *,
        settings: RetrieverSettings | None = None,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
    ) -> None:
        """Open (or create) the store at ``path`` and load it.

        Args:
            path: the database file.
            settings: retriever settings; ``punctuation`` must match the stored one.
            synchronous: SQLite's ``synchronous`` level (see the module docstring).

        Raises:
            StoreError: the file is not a store of this format or tokeniser mode.
        """
        super().__init__(settings=settings)
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._init_schema()
            self._load()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a chat-memory database ({exc})") from exc

    def _init_schema(self) -> None:
        db = self._db
        version = db.execute("PRAGMA user_version").fetchone()[0]
        db.execute("BEGIN IMMEDIATE")
        try:
            if version == 0:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version={USER_VERSION}")
                db.executemany(
                    "INSERT OR IGNORE INTO meta VALUES (?, ?)",
                    [("format", FORMAT), ("punctuation", self.settings.punctuation)],
                )
            if version == 0 or (version == 1 and _stored_format(db) == FORMAT):
                migrate_v1_add_timestamps(db)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        if version not in (0, 1, USER_VERSION) or meta.get("format") != FORMAT:
            raise StoreError(f"{self.path}: unknown format {meta.get('format')!r} v{version}")
        if meta.get("punctuation") != self.settings.punctuation:
            raise StoreError(
                f"{self.path}: built with punctuation={meta.get('punctuation')!r}, "
                f"opened with {self.settings.punctuation!r}"
            )

    def _load(self) -> None:
        index = self.index
        for wid, word in self._db.execute("SELECT id, word FROM words ORDER BY id"):
            if index.word_id(word) != wid:
                raise StoreError(f"{self.path}: word ids are not contiguous at {wid}")
        self._persisted_words = len(index.words)
        rows = self._db.execute(
            "SELECT id, source_ref, user, reply, user_tokens, reply_tokens, timestamp"
            " FROM records ORDER BY id"
        )
        n_words = len(index.words)
        for rid, ref, user, reply, ub, rb, stamp in rows:
            ut, rt = _tokens(ub), _tokens(rb)
            rec = Record(
                id=rid,
                source_ref=ref,
                user=user,
                reply=reply,
                user_tokens=ut,
                reply_tokens=rt,
                timestamp=_stored_timestamp(stamp, self.path, rid),
            )
            if any(t and (min(t) < 0 or max(t) >= n_words) for t in (ut, rt)):
                raise StoreError(f"{self.path}: record {rid} refers to an unknown word")
            index.add(rec)
        index.sync()
        log.debug("loaded %s records, %s words from %s", len(index), n_words, self.path)

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
            TimestampError: ``timestamp`` is in no accepted form (nothing is written).
        """
        when = optional_timestamp(timestamp)
        if source_ref in self.index.by_ref or is_system_exchange(user):
            return None
        index = self.index
        ut = array("i", map(index.word_id, self.tokens(user)))
        rt = array("i", map(index.word_id, self.tokens(reply)))
        new_words = index.words[self._persisted_words :]
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if new_words:
                db.executemany(
                    "INSERT INTO words (id, word) VALUES (?, ?)",
                    enumerate(new_words, self._persisted_words),
                )
            cur = db.execute(
                "INSERT INTO records (source_ref, user, reply, user_tokens, reply_tokens,"
                " timestamp) VALUES (?, ?, ?, ?, ?, ?)",
                (source_ref, user, reply, _blob(ut), _blob(rt), when and when.isoformat()),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._persisted_words += len(new_words)
        rid = cur.lastrowid
        assert rid is not None
        rec = Record(
            id=rid,
            source_ref=source_ref,
            user=user,
            reply=reply,
            user_tokens=ut,
            reply_tokens=rt,
            timestamp=when,
        )
        index.add(rec)
        return rec

    def delete(self, source_ref: str) -> bool:
        """Delete an exchange's record in one transaction and decrement its counts (F16)."""
        rid = self.index.by_ref.get(source_ref)
        if rid is None:
            return False
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM records WHERE id = ?", (rid,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self.index.remove(rid)
        return True

    def close(self) -> None:
        """Checkpoint the WAL and close the connection."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _stored_format(db: sqlite3.Connection) -> object:
    row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    return None if row is None else row[0]


def _stored_timestamp(value: object, path: Path, rid: int) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        raise StoreError(f"{path}: record {rid} has a malformed timestamp {value!r}") from None


def remove_database(path: str | Path) -> None:
    """Delete a database file and its WAL side files, if present."""
    for suffix in ("", "-wal", "-shm"):
        try:
            os.remove(f"{path}{suffix}")
        except FileNotFoundError:
            pass
