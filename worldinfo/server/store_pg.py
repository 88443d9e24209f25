"""The PostgreSQL backend (psycopg 3): one state shared by several workers or machines.

Session transactions lock the session row (``SELECT ... FOR UPDATE``) for the whole
read-modify-write, so two requests for one session queue on the row while other sessions
run in parallel, on any worker that shares the database. A turn costs two round trips:
``BEGIN`` with the locking read, and the writes with ``COMMIT`` (pipeline mode). Schema creation holds an advisory
lock so workers starting together do not race.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from worldinfo.server.sql import SCHEMA_VERSION, Connection
from worldinfo.server.storage import StorageError
from worldinfo.server.transactions import TransactionalStorage

SCHEMA_LOCK = 0x776F726C64  # "world": the advisory lock key for schema creation


class PgStorage(TransactionalStorage):
    """The storage contract in a PostgreSQL database.

    Args:
        dsn: a libpq connection string or ``postgresql://`` URL.

    Raises:
        StorageError: the server cannot be reached or the schema is unknown.
    """

    locking = True
    blob = "BYTEA"

    def __init__(self, dsn: str) -> None:
        super().__init__()
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - the [server] extra brings it
            raise StorageError("PostgreSQL needs psycopg: pip install 'worldinfo[server]'") from exc
        self._psycopg: Any = psycopg
        self._dsn = dsn
        try:
            with self.tx("BEGIN"):
                self.x("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK,))
                self.create_schema()
            version = self.schema_version()
        except psycopg.Error as exc:
            self.close()
            raise StorageError(f"PostgreSQL: {exc}") from exc
        if version != SCHEMA_VERSION:
            self.close()
            raise StorageError(f"PostgreSQL: unknown schema version {version!r}")

    def _connect(self) -> Connection:
        conn: Connection = self._psycopg.connect(self._dsn, autocommit=True)
        return conn

    def pipeline(self) -> AbstractContextManager[Any]:
        """This thread's connection in pipeline mode (psycopg's ``Connection.pipeline``)."""
        pipe: AbstractContextManager[Any] = self.conn().pipeline()  # type: ignore[attr-defined]
        return pipe

    def _begin_read(self) -> str:
        return "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    def _sql(self, query: str) -> str:
        return query.replace("%", "%%").replace("?", "%s")
