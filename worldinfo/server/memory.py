"""Memory stores kept in the server's database: the retriever's in-memory store, persisted.

``PersistedMemory`` is the retriever's own ``MemoryStore`` (same queries, same ingest rules)
loaded from the database's records, with the record ids they were stored under; every
ingest or delete is also noted as a change, which the caller writes in the transaction that
made it. ``MemoryCache`` keeps one loaded store per store id and version in each worker:
a store whose version moved (another worker wrote to it) is loaded again.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

from worldinfo._js import JSONValue
from worldinfo.server.storage import MemoryChanges, MemoryRecordRow, Transaction
from worldinfo.sources.retriever_index import Record, token_ids
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.store_memory import MemoryStore
from worldinfo.sources.timestamps import optional_timestamp

MAX_STORES = 256


def retriever_settings(config: Mapping[str, JSONValue]) -> RetrieverSettings:
    """Retriever settings from a store's stored settings object (unknown names ignored)."""
    return RetrieverSettings.from_config(config)


class PersistedMemory(MemoryStore):
    """A ``MemoryStore`` over a database's records that notes its changes.

    Args:
        settings: the retriever settings.
        records: the stored records, oldest first.
        version: the store's version they were read at.
    """

    def __init__(
        self, *, settings: RetrieverSettings, records: Iterable[MemoryRecordRow], version: int
    ) -> None:
        super().__init__(settings=settings)
        for row in records:
            rec = Record(
                timestamp=optional_timestamp(row.timestamp),
                id=row.id,
                source_ref=row.source_ref,
                user=row.user,
                reply=row.reply,
                user_tokens=token_ids(self.index, self.tokens(row.user)),
                reply_tokens=token_ids(self.index, self.tokens(row.reply)),
            )
            self.index.add(rec)
            self._next_id = row.id + 1
        self.version = version
        self._added: list[MemoryRecordRow] = []
        self._deleted: list[str] = []

    def ingest(
        self, user: str, reply: str, *, source_ref: str, timestamp: object = None
    ) -> Record | None:
        """Ingest as ``MemoryStore`` does and note the new record."""
        rec = super().ingest(user, reply, source_ref=source_ref, timestamp=timestamp)
        if rec is not None:
            when = rec.timestamp.isoformat() if rec.timestamp is not None else None
            row = MemoryRecordRow(
                id=rec.id, source_ref=source_ref, user=user, reply=reply, timestamp=when
            )
            self._added.append(row)
        return rec

    def delete(self, source_ref: str) -> bool:
        """Delete as ``MemoryStore`` does and note it."""
        done = super().delete(source_ref)
        if done:
            self._added = [r for r in self._added if r.source_ref != source_ref]
            self._deleted.append(source_ref)
        return done

    def take_changes(self) -> MemoryChanges | None:
        """The changes since the last call (``None``: nothing changed)."""
        if not self._added and not self._deleted:
            return None
        out = MemoryChanges(added=tuple(self._added), deleted=tuple(self._deleted))
        self._added, self._deleted = [], []
        return out


class MemoryCache:
    """One loaded store per id in this worker, reused while its version has not moved."""

    def __init__(self) -> None:
        self._stores: dict[str, PersistedMemory] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    @contextmanager
    def checkout(
        self, tx: Transaction, store_id: str, *, write: bool = True
    ) -> Iterator[PersistedMemory]:
        """The store, current as of ``tx``; its changes are written to ``tx`` on exit.

        Only one thread of this worker uses a store at a time. If the body fails, the loaded
        store is dropped (the caller also calls ``forget`` when the commit fails); with
        ``write=False`` its changes are discarded and so is the store.
        """
        with self._guard:
            lock = self._locks.setdefault(store_id, threading.Lock())
        with lock:
            head = tx.memory(store_id)
            store = self._stores.pop(store_id, None)
            if store is None or store.version != head.version:
                settings = retriever_settings(head.settings)
                records = tx.memory_records(store_id)
                store = PersistedMemory(settings=settings, records=records, version=head.version)
            yield store
            if not write:
                return
            changes = store.take_changes()
            if changes is not None:
                store.version = tx.change_memory(store_id, changes)
            self._keep(store_id, store)

    def _keep(self, store_id: str, store: PersistedMemory) -> None:
        with self._guard:
            if len(self._stores) >= MAX_STORES:
                self._stores.pop(next(iter(self._stores)))
            self._stores[store_id] = store

    def forget(self, store_id: str) -> None:
        """Drop a loaded store (after a failed commit)."""
        with self._guard:
            self._stores.pop(store_id, None)
