"""The server's operations, independent of HTTP: uploads, sessions, generations, memory.

A session is rebuilt for every request from its stored state (the books come from the
per-worker caches, so rebuilding costs no book preparation; the parsed row and chat from
``sessions.SessionCache`` while the stored version has not moved), runs one operation, and
what it changed is written back in the same transaction (``storage.session_tx``). A session's random stream is
derived from its seed and its generation number, so a chat replays the same way whichever
worker serves each turn. Dry runs and explanations change nothing stored.
"""

from __future__ import annotations

import logging
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from typing import TypeVar

from worldinfo._js import JSONValue
from worldinfo.importers import Limits
from worldinfo.server.memory import MemoryCache, PersistedMemory, retriever_settings
from worldinfo.server.prepared import Heap, ScanCachePool
from worldinfo.server.sessions import (
    Parsed,
    SessionCache,
    build_session,
    chat_json,
    committed,
    extra_json,
    memory_source,
    parse,
)
from worldinfo.server.sql import Conflict
from worldinfo.server.storage import SessionRow, SessionTransaction, Storage
from worldinfo.server.timing import ScanClock
from worldinfo.server.uploads import Uploads, new_id
from worldinfo.server.wire import message_json
from worldinfo.session import Session

log = logging.getLogger(__name__)
T = TypeVar("T")
RETRIES = 50


class Busy(Exception):
    """A session kept changing under this request (many writers at once); retry later."""


class Service(Uploads):
    """The operations over one storage backend, with this worker's caches.

    Args:
        storage: the backend.
        limits: the importers' bounds for uploads.
        scan_slots: how many scans (and memory operations) run at once in this process.
            Python runs one thread's bytecode at a time, so two scans side by side each take
            twice as long; taking turns gives the same throughput and half the wait. Only
            the scan takes a slot: waiting for a row lock or the database does not.
    """

    def __init__(self, storage: Storage, *, limits: Limits, scan_slots: int = 1) -> None:
        super().__init__(storage, limits=limits)
        self.slots = threading.Semaphore(scan_slots)
        self.scan_caches = ScanCachePool()
        self.memories = MemoryCache()
        self.sessions = SessionCache()
        self.heap = Heap()
        self.clock = ScanClock()

    def settle(self) -> None:
        """Freeze what the caches prepared since the last call (see ``prepared.Heap``)."""
        self.heap.settle(
            grown=(self.uploads.misses, self.scan_caches.created),
            dropped=(self.uploads.evicted, self.scan_caches.evicted),
        )

    # --- sessions ------------------------------------------------------------------------

    def create_session(self, owner: str, body: Mapping[str, JSONValue]) -> SessionRow:
        """Open a session over stored uploads (raises ``NotFound`` for unknown ids)."""
        config = {k: v for k, v in body.items() if k not in ("chat", "chat_metadata")}
        config.setdefault("seed", secrets.randbits(32))
        chat: list[JSONValue] = list(body.get("chat") or [])
        metadata = dict(body.get("chat_metadata") or {})
        loaded = self.resolve(owner, config)  # every id must name one of the owner's uploads
        memory = config.get("memory")
        if isinstance(memory, dict):
            self.storage.memory_head(owner, str(memory.get("store")))
        chat_import = config.pop("chat_import", None)
        if isinstance(chat_import, str):
            imported = self.imported(self.storage.book(owner, chat_import))
            chat = [message_json(m) for m in imported.chat] + chat
            metadata = {**imported.chat_metadata, **metadata}
        row = SessionRow(
            id=new_id("se"), owner=owner, config=config, chat=chat, chat_metadata=metadata,
            extra={},
        )  # fmt: skip
        parsed = parse(row, loaded)
        self._prepare(parsed)
        self.storage.create_session(row)
        self.sessions.put(parsed)
        return row

    def _prepare(self, parsed: Parsed) -> None:
        """Scan a new session once, storing nothing: the worker prepares the plan of its
        book set and settings now (some 350 ms for a 5,000-entry book), not in its first
        generate; later sessions over the same books find it ready."""
        session = build_session(parsed, parsed.row)
        with self._slot(session, parsed):
            session.generate("normal", dry_run=True)

    def delete_session(self, owner: str, session_id: str) -> None:
        """Delete a session (raises ``NotFound``)."""
        self.sessions.forget(owner, session_id)
        self.storage.delete_session(owner, session_id)

    def update(
        self,
        owner: str,
        session_id: str,
        fn: Callable[[Session, SessionRow], T],
        *,
        generation: bool = False,
    ) -> T:
        """Run ``fn`` on the rebuilt session and store what it changed, serialised per session.

        A conflicting write from another worker (SQLite) reruns ``fn`` on the new state.
        ``generation`` counts the change as a generation (the next one draws a new stream).
        """
        for _ in range(RETRIES):
            touched: list[str] = []
            try:
                with self._session(owner, session_id, touched=touched) as (tx, parsed, session):
                    with self._slot(session, parsed):  # locks and writes are outside it
                        out = fn(session, tx.row)
                        chat = list(session.chat)
                        row = tx.row
                        saved = replace(
                            row,
                            chat=chat_json(parsed, chat),
                            chat_metadata=dict(session.chat_metadata),
                            extra=extra_json(session, row.extra),
                            turn=row.turn + 1 if generation else row.turn,
                        )
                    tx.save(saved)
                self.sessions.put(committed(parsed, saved, chat))
                return out
            except Conflict:
                self._forget(owner, session_id, touched)
            except BaseException:
                self._forget(owner, session_id, touched)
                raise
        raise Busy(f"session {session_id} is changing too fast; retry")

    def peek(self, owner: str, session_id: str, fn: Callable[[Session, SessionRow], T]) -> T:
        """Run ``fn`` on the rebuilt session and store nothing (dry runs, explanations)."""
        for _ in range(RETRIES):
            touched: list[str] = []
            try:
                with (
                    self._session(owner, session_id, touched=touched, write=False) as opened,
                    self._slot(opened[2], opened[1]),
                ):
                    return fn(opened[2], opened[0].row)
            except Conflict:
                pass
            finally:
                for store_id in touched:
                    self.memories.forget(store_id)
        raise Busy(f"session {session_id} is changing too fast; retry")

    @contextmanager
    def _slot(self, session: Session | None, parsed: Parsed | None) -> Iterator[None]:
        """A scan slot (waiting for it is the ``slot`` phase) with a scan cache of the
        session's book set: taken in the slot, one cache per book set serves every scan."""
        with self.clock.phase("slot"):
            self.slots.acquire()
        try:
            if session is None or parsed is None:
                yield
                return
            with self.scan_caches.checkout(parsed.loaded.key) as session.scan_cache:
                yield
        finally:
            self.slots.release()

    def _forget(self, owner: str, session_id: str, touched: list[str]) -> None:
        self.sessions.forget(owner, session_id)
        for store_id in touched:
            self.memories.forget(store_id)

    def memory_op(self, owner: str, store_id: str, fn: Callable[[PersistedMemory], T]) -> T:
        """Run ``fn`` on a memory store in one transaction (rerun on a conflicting write)."""
        for _ in range(RETRIES):
            try:
                with (
                    self.storage.memory_tx(owner, store_id) as tx,
                    self.memories.checkout(tx, store_id) as store,
                    self._slot(None, None),
                ):
                    out = fn(store)
                return out
            except Conflict:
                self.memories.forget(store_id)
            except BaseException:
                self.memories.forget(store_id)
                raise
        raise Busy(f"memory store {store_id} is changing too fast; retry")

    @contextmanager
    def _session(
        self, owner: str, session_id: str, *, touched: list[str], write: bool = True
    ) -> Iterator[tuple[SessionTransaction, Parsed, Session]]:
        known = self.sessions.get(owner, session_id)
        opened = self.storage.session_tx(
            owner, session_id, known=None if known is None else known.row
        )
        with self.clock.timed("db", opened) as tx:
            if known is not None and tx.row is known.row:
                parsed = known
            else:
                self.sessions.misses += 1
                parsed = parse(tx.row, self.resolve(owner, tx.row.config))
                self.sessions.put(parsed)
            with ExitStack() as stack:
                session = build_session(parsed, tx.row)
                session.scan_cache = None  # one from the pool, in the scan slot (``_slot``)
                memory = tx.row.config.get("memory")
                if isinstance(memory, dict):
                    store_id = str(memory.get("store"))
                    touched.append(store_id)
                    store = stack.enter_context(self.memories.checkout(tx, store_id, write=write))
                    session.sources.append(memory_source(store, memory, tx.row))
                yield tx, parsed, session


def memory_settings_json(settings: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """A memory store's settings as stored (checked by building them once)."""
    retriever_settings(settings)
    return dict(settings)
