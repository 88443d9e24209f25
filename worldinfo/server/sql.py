"""The storage contract over SQL, shared by the SQLite and PostgreSQL backends.

Both keep the same tables (``wi_*``; JSON as text). Connections are per thread. A session
transaction is one of two kinds, chosen by the backend:

* locking (PostgreSQL): ``BEGIN``, then ``SELECT ... FOR UPDATE`` on the session row (and on
  each memory store it touches); writes go straight in; ``COMMIT`` on exit. Another request
  for the same session waits for the lock; other sessions run in parallel.
* optimistic (SQLite): the rows are read in a read transaction; writes are kept until the
  end, then applied in one ``BEGIN IMMEDIATE`` write transaction after checking that no
  version moved. If one did, nothing is written and ``Conflict`` is raised: the caller runs
  the request again on the new state. Scans of different sessions then run in parallel in
  several workers; only the short write transactions queue on SQLite's write lock.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Protocol

from worldinfo._js import JSONValue
from worldinfo.server.storage import BookRow, NotFound

log = logging.getLogger(__name__)

SCHEMA_VERSION = "2"
TABLES = """
CREATE TABLE IF NOT EXISTS wi_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS wi_books (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, sha256 TEXT NOT NULL, name TEXT NOT NULL,
    format TEXT NOT NULL, trust INTEGER NOT NULL, raw {blob} NOT NULL,
    created DOUBLE PRECISION NOT NULL);
CREATE TABLE IF NOT EXISTS wi_sessions (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, config TEXT NOT NULL,
    chat_metadata TEXT NOT NULL, extra TEXT NOT NULL, turn INTEGER NOT NULL,
    version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS wi_chat (
    session_id TEXT NOT NULL, seq INTEGER NOT NULL, message TEXT NOT NULL,
    PRIMARY KEY (session_id, seq));
CREATE TABLE IF NOT EXISTS wi_memories (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, settings TEXT NOT NULL, version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS wi_memory_records (
    store_id TEXT NOT NULL, id INTEGER NOT NULL, source_ref TEXT NOT NULL,
    user_text TEXT NOT NULL, reply TEXT NOT NULL, timestamp TEXT,
    PRIMARY KEY (store_id, id), UNIQUE (store_id, source_ref))
"""


class Conflict(Exception):
    """Another request changed the rows this transaction read; nothing was written."""


class Connection(Protocol):
    """The part of a DB-API connection both drivers share."""

    def execute(self, query: Any, params: Any = ..., /) -> Any: ...

    def cursor(self) -> Any: ...

    def close(self) -> None: ...


def dumps(value: JSONValue) -> str:
    """JSON text as stored."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class SqlStorage:
    """The contract over a DB-API driver; subclasses connect and pick the transaction kind."""

    locking = False
    blob = "BLOB"

    def __init__(self) -> None:
        self._local = threading.local()
        self._all: list[Connection] = []
        self._lock = threading.Lock()
        self._writes = threading.Lock()

    # --- driver hooks --------------------------------------------------------------------

    def _connect(self) -> Connection:
        raise NotImplementedError

    def _sql(self, query: str) -> str:
        return query

    def _begin_write(self) -> str:
        return "BEGIN"

    def _lock_suffix(self) -> str:
        return " FOR UPDATE" if self.locking else ""

    def pipeline(self) -> AbstractContextManager[Any]:
        """Statements sent together, answered at the first fetch or at the end (PostgreSQL's
        pipeline mode: one round trip; elsewhere they simply run one by one)."""
        return nullcontext()

    # --- plumbing ------------------------------------------------------------------------

    def conn(self) -> Connection:
        """This thread's connection."""
        c: Connection | None = getattr(self._local, "conn", None)
        if c is None:
            c = self._connect()
            self._local.conn = c
            with self._lock:
                self._all.append(c)
        return c

    def x(self, query: str, params: tuple[Any, ...] = ()) -> Any:
        """Execute on this thread's connection; returns the cursor."""
        return self.conn().execute(self._sql(query), params)

    def xmany(self, query: str, params: list[tuple[Any, ...]]) -> None:
        """Execute once per parameter tuple on this thread's connection."""
        self.conn().cursor().executemany(self._sql(query), params)

    @contextmanager
    def tx(self, begin: str = "BEGIN") -> Iterator[None]:
        """One transaction on this thread's connection.

        SQLite write transactions of one process queue on a lock first: SQLite's own busy
        handler polls with growing sleeps, which lets one thread starve behind the others.
        """
        with self._writes if begin == "BEGIN IMMEDIATE" else nullcontext():
            self.x(begin)
            try:
                yield
            except BaseException:
                self.x("ROLLBACK")
                raise
            self.x("COMMIT")

    def create_schema(self) -> None:
        """Create the tables if missing (inside the caller's transaction)."""
        for statement in TABLES.format(blob=self.blob).split(";"):
            if statement.strip():
                self.x(statement)
        self.x(
            "INSERT INTO wi_meta (key, value) VALUES ('schema', ?) ON CONFLICT (key) DO NOTHING",
            (SCHEMA_VERSION,),
        )

    def schema_version(self) -> str | None:
        """The stored schema version."""
        row = self.x("SELECT value FROM wi_meta WHERE key = 'schema'").fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        """Close every connection this object opened."""
        with self._lock:
            conns, self._all = self._all, []
        for c in conns:
            try:
                c.close()
            except Exception:
                log.debug("closing a connection failed", exc_info=True)
        self._local = threading.local()

    # --- books ---------------------------------------------------------------------------

    def put_book(self, row: BookRow) -> None:
        """Store an upload."""
        import time

        with self.tx(self._begin_write()):
            self.x(
                "INSERT INTO wi_books (id, owner, sha256, name, format, trust, raw, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (row.id, row.owner, row.sha256, row.name, row.format, int(row.trust), row.raw)
                + (time.time(),),
            )

    def _book_rows(self, where: str, params: tuple[Any, ...], *, raw: bool = True) -> list[BookRow]:
        cur = self.x(
            f"SELECT id, owner, sha256, name, format, trust, {'raw' if raw else 'NULL'}"
            " FROM wi_books WHERE " + where + " ORDER BY created, id",
            params,
        )
        return [
            BookRow(
                id=r[0],
                owner=r[1],
                sha256=r[2],
                name=r[3],
                format=r[4],
                trust=bool(r[5]),
                raw=bytes(r[6] or b""),
            )
            for r in cur.fetchall()
        ]

    def book(self, owner: str, book_id: str, *, raw: bool = True) -> BookRow:
        """An upload by id (raises ``NotFound``); ``raw=False`` leaves ``raw`` empty."""
        rows = self._book_rows("owner = ? AND id = ?", (owner, book_id), raw=raw)
        if not rows:
            raise NotFound("book", book_id)
        return rows[0]

    def books(self, owner: str) -> list[BookRow]:
        """The owner's uploads, oldest first (without their bytes)."""
        return self._book_rows("owner = ?", (owner,), raw=False)
