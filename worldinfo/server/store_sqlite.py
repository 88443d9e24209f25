"""The SQLite backend: one database file, nothing else to start (the default).

WAL journal, ``synchronous=NORMAL``: a committed transaction survives the process being
killed at any moment (``FULL`` also survives power loss). Session transactions are
optimistic (see ``sql``): scans run outside the write lock, so several workers on one file
scan different sessions in parallel.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from worldinfo.server.sql import SCHEMA_VERSION, Connection
from worldinfo.server.storage import StorageError
from worldinfo.server.transactions import TransactionalStorage
from worldinfo.sources.store_open import use_wal

BUSY_TIMEOUT_S = 30.0


class SqliteStorage(TransactionalStorage):
    """The storage contract in one SQLite file.

    Args:
        path: the database file (created with its tables if missing).
        synchronous: SQLite's ``synchronous`` level.

    Raises:
        StorageError: the file is not a worldinfo server database.
    """

    def __init__(self, path: str | Path, *, synchronous: str = "NORMAL") -> None:
        super().__init__()
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError("synchronous must be NORMAL or FULL")
        self.path = Path(path)
        self._synchronous = synchronous
        try:
            with self.tx("BEGIN IMMEDIATE"):
                self.create_schema()
            version = self.schema_version()
        except sqlite3.DatabaseError as exc:
            self.close()
            raise StorageError(f"{self.path}: not a worldinfo server database ({exc})") from exc
        if version != SCHEMA_VERSION:
            self.close()
            raise StorageError(f"{self.path}: unknown schema version {version!r}")

    def _connect(self) -> Connection:
        conn = sqlite3.connect(
            self.path, isolation_level=None, timeout=BUSY_TIMEOUT_S, check_same_thread=False
        )
        use_wal(conn, timeout=BUSY_TIMEOUT_S)
        conn.execute(f"PRAGMA synchronous={self._synchronous}")
        return conn

    def _begin_write(self) -> str:
        return "BEGIN IMMEDIATE"
