"""Session and memory-store transactions: locking (PostgreSQL) or optimistic (SQLite);
and the memory-store tables they read and write.

See ``sql``'s docstring for the two kinds. Both keep the contract of ``storage``: a
transaction commits on top of exactly the state it read, or changes nothing (an error in the
body rolls back; an optimistic commit that finds a moved version raises ``Conflict``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from worldinfo.server.sql import Conflict, dumps
from worldinfo.server.sql_sessions import SessionTables
from worldinfo.server.storage import (
    MemoryChanges,
    MemoryRecordRow,
    MemoryRow,
    NotFound,
    SessionRow,
)


class SqlTransaction:
    """One transaction; ``row`` is the locked session (``None`` for a memory transaction)."""

    def __init__(self, storage: TransactionalStorage, owner: str) -> None:
        self.storage = storage
        self.owner = owner
        self._row: SessionRow | None = None
        self._heads: dict[str, MemoryRow] = {}
        self._saved: SessionRow | None = None
        self._changes: dict[str, list[MemoryChanges]] = {}

    @property
    def row(self) -> SessionRow:
        """The session as read when the transaction began."""
        assert self._row is not None, "not a session transaction"
        return self._row

    @row.setter
    def row(self, value: SessionRow) -> None:
        self._row = value

    def memory(self, store_id: str) -> MemoryRow:
        """Lock (locking kind) and read a memory store's head (raises ``NotFound``)."""
        head = self._heads.get(store_id)
        if head is None:
            head = self.storage.read_memory(self.owner, store_id, lock=self.storage.locking)
            self._heads[store_id] = head
        return head

    def memory_records(self, store_id: str) -> list[MemoryRecordRow]:
        """Every live record of a store (as of the head read by ``memory``)."""
        head = self.memory(store_id)
        if self.storage.locking:
            return self.storage.read_records(store_id)
        with self.storage.tx("BEGIN"):
            now = self.storage.read_memory(self.owner, store_id)
            records = self.storage.read_records(store_id)
        if now.version != head.version:
            raise Conflict(f"memory store {store_id} changed")
        return records

    def change_memory(self, store_id: str, changes: MemoryChanges) -> int:
        """Apply (locking) or keep (optimistic) ``changes``; return the version after commit."""
        head = self.memory(store_id)
        if self.storage.locking:
            self.storage.write_memory(store_id, changes, version=head.version)
        else:
            self._changes.setdefault(store_id, []).append(changes)
        self._heads[store_id] = MemoryRow(
            id=head.id, owner=head.owner, settings=head.settings, version=head.version + 1
        )
        return head.version + 1

    def save(self, row: SessionRow) -> None:
        """Keep ``row`` to be written with the commit (only what changed since it was read)."""
        self._saved = row

    def commit_locked(self) -> None:
        """Write the saved session and commit, in one round trip (locking kind)."""
        with self.storage.pipeline():
            if self._saved is not None:
                self.storage.write_session(self._saved, old=self.row)
            self.storage.x("COMMIT")

    def commit_optimistic(self) -> None:
        """Check that nothing moved, then write everything in one write transaction."""
        s = self.storage
        if self._saved is None and not self._changes:
            return
        with s.tx(s._begin_write()):
            if self._saved is not None:
                if s.read_version(self.owner, self._saved.id) != self._saved.version:
                    raise Conflict(f"session {self._saved.id} changed")
                s.write_session(self._saved, old=self.row)
            for store_id, batches in self._changes.items():
                version = s.read_memory(self.owner, store_id).version
                if version != self._heads[store_id].version - len(batches):
                    raise Conflict(f"memory store {store_id} changed")
                for changes in batches:
                    s.write_memory(store_id, changes, version=version)
                    version += 1


def _current(
    storage: TransactionalStorage, owner: str, session_id: str, known: SessionRow | None
) -> SessionRow:
    """``known`` if the stored version is still its version, else the stored row."""
    version = storage.read_version(owner, session_id, lock=storage.locking)
    if known is not None and known.version == version and known.owner == owner:
        return known
    return storage.read_session(owner, session_id)


@contextmanager
def session_tx(
    storage: TransactionalStorage,
    owner: str,
    session_id: str,
    *,
    known: SessionRow | None = None,
) -> Iterator[SqlTransaction]:
    """Lock (or snapshot) one session for a read-modify-write."""
    tx = SqlTransaction(storage, owner)
    if storage.locking:
        try:
            with storage.pipeline():  # BEGIN and the locking read: one round trip
                storage.x("BEGIN")
                tx.row = _current(storage, owner, session_id, known)
            yield tx
            tx.commit_locked()
        except BaseException:
            storage.x("ROLLBACK")
            raise
        return
    with storage.tx(storage._begin_read()):
        tx.row = _current(storage, owner, session_id, known)
    yield tx
    tx.commit_optimistic()


@contextmanager
def memory_tx(storage: TransactionalStorage, owner: str, store_id: str) -> Iterator[SqlTransaction]:
    """A transaction on one memory store (raises ``NotFound``)."""
    tx = SqlTransaction(storage, owner)
    if storage.locking:
        with storage.tx("BEGIN"):
            tx.memory(store_id)
            yield tx
        return
    tx.memory(store_id)
    yield tx
    tx.commit_optimistic()


class TransactionalStorage(SessionTables):
    """``SessionTables`` with the memory-store tables and the contract's two transactions."""

    # --- memory stores -------------------------------------------------------------------

    def create_memory(self, row: MemoryRow) -> None:
        """Store a new, empty memory store."""
        with self.tx(self._begin_write()):
            self.x(
                "INSERT INTO wi_memories (id, owner, settings, version) VALUES (?, ?, ?, ?)",
                (row.id, row.owner, dumps(row.settings), row.version),
            )

    def read_memory(self, owner: str, store_id: str, *, lock: bool = False) -> MemoryRow:
        """A memory store's head (raises ``NotFound``)."""
        cur = self.x(
            "SELECT id, owner, settings, version FROM wi_memories WHERE owner = ? AND id = ?"
            + (self._lock_suffix() if lock else ""),
            (owner, store_id),
        )
        r = cur.fetchone()
        if r is None:
            raise NotFound("memory store", store_id)
        return MemoryRow(id=r[0], owner=r[1], settings=json.loads(r[2]), version=int(r[3]))

    def memory_head(self, owner: str, store_id: str) -> MemoryRow:
        """A memory store's head without locking (raises ``NotFound``)."""
        return self.read_memory(owner, store_id)

    def read_records(self, store_id: str) -> list[MemoryRecordRow]:
        """Every live record of a store, oldest first."""
        cur = self.x(
            "SELECT id, source_ref, user_text, reply, timestamp FROM wi_memory_records"
            " WHERE store_id = ? ORDER BY id",
            (store_id,),
        )
        return [
            MemoryRecordRow(id=int(r[0]), source_ref=r[1], user=r[2], reply=r[3], timestamp=r[4])
            for r in cur.fetchall()
        ]

    def memory_records(self, owner: str, store_id: str) -> list[MemoryRecordRow]:
        """Every live record of a store, oldest first (raises ``NotFound``)."""
        self.read_memory(owner, store_id)
        return self.read_records(store_id)

    def write_memory(self, store_id: str, changes: MemoryChanges, *, version: int) -> None:
        """Apply ``changes`` and set the store's version to ``version + 1``."""
        for ref in changes.deleted:
            self.x(
                "DELETE FROM wi_memory_records WHERE store_id = ? AND source_ref = ?",
                (store_id, ref),
            )
        for rec in changes.added:
            self.x(
                "INSERT INTO wi_memory_records"
                " (store_id, id, source_ref, user_text, reply, timestamp)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (store_id, rec.id, rec.source_ref, rec.user, rec.reply, rec.timestamp),
            )
        self.x("UPDATE wi_memories SET version = ? WHERE id = ?", (version + 1, store_id))

    def session_tx(
        self, owner: str, session_id: str, *, known: SessionRow | None = None
    ) -> AbstractContextManager[SqlTransaction]:
        """Lock (or snapshot) a session for one read-modify-write (see ``session_tx``)."""
        return session_tx(self, owner, session_id, known=known)

    def memory_tx(self, owner: str, store_id: str) -> AbstractContextManager[SqlTransaction]:
        """A transaction on one memory store (see ``memory_tx``)."""
        return memory_tx(self, owner, store_id)
