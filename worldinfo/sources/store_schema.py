"""The chat-memory store's schema: creation and upgrades, checks on open, the token blobs.

``migrate_schema`` is the one place the schema changes; ``quick_check`` and ``validate_meta``
run on every open.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
import time
from array import array
from pathlib import Path

from worldinfo.sources.retriever_index import IDS
from worldinfo.sources.store_errors import StoreCorruptError, StoreError, salvage_hint

log = logging.getLogger(__name__)

FORMAT = "worldinfo-chat-memory/1"
USER_VERSION = 2
"""1: the first format; 2: adds a nullable ``records.timestamp`` (ISO 8601 text)."""
BUSY_TIMEOUT_S = 10.0
"""How long an ingest waits for another process's write lock before ``StoreBusyError``."""
QUICK_CHECK_S = 2.0
"""Time bound of the structural check on open (``PRAGMA quick_check``); skipped past it."""

_SCHEMA_V1 = """
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


def blob(tokens: array[int]) -> bytes:
    if sys.byteorder == "big":  # pragma: no cover - stored little-endian everywhere
        tokens = array(tokens.typecode, tokens)
        tokens.byteswap()
    return tokens.tobytes()


def tokens_of(blob: bytes) -> array[int]:
    out = array(IDS)  # a stored negative id reads as >= 2**31: an unknown word on load
    out.frombytes(blob)
    if sys.byteorder == "big":  # pragma: no cover
        out.byteswap()
    return out


def rollback(db: sqlite3.Connection) -> None:
    """Roll back if a transaction is open; a failing rollback must not hide the first error."""
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error as exc:  # pragma: no cover - SQLite rolls back by itself then
            log.debug("rollback failed: %s", exc)


def migrate_v1_add_timestamps(db: sqlite3.Connection) -> None:
    """Schema v1 -> v2: a nullable ``timestamp`` per record (ISO 8601 text, NULL = unknown).

    Runs inside the caller's open transaction; records stored before keep NULL.
    """
    db.execute("ALTER TABLE records ADD COLUMN timestamp TEXT")
    db.execute("PRAGMA user_version=2")


def has_timestamps(db: sqlite3.Connection) -> bool:
    """Whether the records carry timestamps (v2); a v1 store opened read-only does not."""
    return bool(db.execute("PRAGMA user_version").fetchone()[0] >= 2)


def _stored_format(db: sqlite3.Connection) -> object:
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else row[0]


def migrate_schema(db: sqlite3.Connection, *, punctuation: str) -> None:
    """Create the schema of a new store or upgrade an older one: the one place it changes.

    Runs under the write lock and re-reads ``user_version`` there, so two processes creating
    one store at once do it once. A v1 store of this format gains timestamps (v2); a file of
    another format is left alone (``validate_meta`` refuses it).
    """
    if db.execute("PRAGMA user_version").fetchone()[0] == USER_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            for statement in _SCHEMA_V1.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.executemany(
                "INSERT OR IGNORE INTO meta VALUES (?, ?)",
                [("format", FORMAT), ("punctuation", punctuation)],
            )
            db.execute("PRAGMA user_version=1")
        if version in (0, 1) and _stored_format(db) == FORMAT:
            migrate_v1_add_timestamps(db)
        db.execute("COMMIT")
    except BaseException:
        rollback(db)
        raise


def quick_check(db: sqlite3.Connection, path: Path, *, limit_s: float = QUICK_CHECK_S) -> None:
    """Run ``PRAGMA quick_check`` within ``limit_s`` (structure of every page).

    Raises:
        StoreCorruptError: the check found damage. Past the time bound the check is skipped
            (logged); the consistency checks of the load still run.
    """
    deadline = time.monotonic() + limit_s
    db.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    try:
        rows = db.execute("PRAGMA quick_check(3)").fetchall()
    except sqlite3.OperationalError as exc:
        if getattr(exc, "sqlite_errorcode", None) != 9:  # SQLITE_INTERRUPT
            raise
        log.warning("%s: quick_check skipped after %.1f s", path, limit_s)
        return
    finally:
        db.set_progress_handler(None, 0)
    if rows != [("ok",)]:
        found = "; ".join(str(r[0])[:200] for r in rows)
        raise StoreCorruptError(f"{path}: damaged store ({found}); {salvage_hint(path)}")


def validate_meta(db: sqlite3.Connection, path: Path, *, punctuation: str) -> None:
    """Check that the store is this format and was built with this tokeniser mode.

    Raises:
        StoreError: it is not.
    """
    version = db.execute("PRAGMA user_version").fetchone()[0]
    try:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.OperationalError as exc:
        if "no such table" not in str(exc):
            raise
        meta = {}
    if version not in (1, USER_VERSION) or meta.get("format") != FORMAT:
        raise StoreError(
            f"{path}: not a chat-memory database (format {meta.get('format')!r}, version {version})"
        )
    if meta.get("punctuation") != punctuation:
        raise StoreError(
            f"{path}: built with punctuation={meta.get('punctuation')!r}, "
            f"opened with {punctuation!r}"
        )
