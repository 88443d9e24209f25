"""File-level helpers of the SQLite store: read-only opening, fsync, removing side files.

A reader must work where nothing can be written: on a read-only mount, or on a full disk.
SQLite opened with ``mode=ro`` still needs the WAL index (``-shm``) of a WAL database; when
that file cannot be created and no WAL content exists (``-wal`` absent or without frames),
nothing but this file holds the data, so the store is opened ``immutable`` instead.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import stat
import time
import urllib.parse
from pathlib import Path

from worldinfo.sources.store_errors import StoreError, StoreMissingError

log = logging.getLogger(__name__)

_WAL_HEADER = 32
_READONLY, _IOERR, _CANTOPEN = 8, 10, 14
_BUSY = 5
_WAL_RETRY_S = 0.01


def use_wal(db: sqlite3.Connection, *, timeout: float) -> None:
    """Switch ``db`` to WAL, waiting up to ``timeout`` seconds for another connection's lock.

    The switch of a file still in rollback mode (a store being created) takes a read lock and
    then a write lock. While another connection holds the write lock (another process
    creating the same store), SQLite answers busy at once instead of calling its busy
    handler, which could deadlock there: so the switch is retried until ``timeout``.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            code = getattr(exc, "sqlite_errorcode", None)
            if code is None or code & 0xFF != _BUSY or time.monotonic() >= deadline:
                raise
        time.sleep(_WAL_RETRY_S)


def _wal_has_frames(path: Path) -> bool:
    try:
        return os.stat(f"{path}-wal").st_size > _WAL_HEADER
    except FileNotFoundError:
        return False


def connect_readonly(path: Path, *, timeout: float) -> sqlite3.Connection:
    """Open an existing store for reading only; never create or write a file.

    Args:
        path: the database file.
        timeout: busy timeout in seconds.

    Returns:
        A connection in autocommit mode (``isolation_level=None``).

    Raises:
        StoreMissingError: the file does not exist or is empty.
        StoreError: the path is not a regular file or cannot be read.
        sqlite3.Error: SQLite refused it (the caller maps it to a typed error).
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        raise StoreMissingError(f"{path}: no such store (nothing was created)") from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise StoreError(f"{path}: not a regular file")
    if st.st_size == 0:
        raise StoreMissingError(f"{path}: empty file, not a store (nothing was created)")
    uri = "file:" + urllib.parse.quote(str(path.resolve()))
    db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, timeout=timeout)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.OperationalError as exc:
        db.close()
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        if code not in (_READONLY, _IOERR, _CANTOPEN) or _wal_has_frames(path):
            raise
        log.info("%s: WAL index not writable (%s); reading the file as immutable", path, exc)
    except BaseException:
        db.close()
        raise
    return sqlite3.connect(
        f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None, timeout=timeout
    )


def fsync_path(path: Path, *, directory: bool = False) -> None:
    """Flush a file (or a directory's entries) to stable storage."""
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_database(path: str | Path) -> None:
    """Delete a database file and its WAL side files, if present."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")


def remove_side_files(path: str | Path) -> None:
    """Delete a database's WAL side files (``-wal``, ``-shm``), if present."""
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{path}{suffix}")
