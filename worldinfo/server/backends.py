"""``open_storage``: the backend a database URL names (PostgreSQL DSN or SQLite path).

Apart from ``storage`` (the contract) because the backends build on the contract.
"""

from __future__ import annotations

from worldinfo.server.storage import Storage
from worldinfo.server.store_sqlite import SqliteStorage


def open_storage(url: str) -> Storage:
    """Open a backend: ``postgresql://...`` (or ``postgres://``) DSNs, else a SQLite file path.

    Raises:
        StorageError: when the database cannot be opened or has an unknown schema.
    """
    if url.startswith(("postgresql://", "postgres://")):
        from worldinfo.server.store_pg import PgStorage

        return PgStorage(url)
    return SqliteStorage(url)
