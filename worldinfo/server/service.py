"""The server's operations, independent of HTTP: uploads, sessions, generations, memory.

A session is rebuilt for every request from its stored row (the books come from the
per-worker caches, so rebuilding costs no book preparation), runs one operation, and is
written back in the same transaction (``storage.session_tx``). A session's random stream is
derived from its seed and its generation number, so a chat replays the same way whichever
worker serves each turn. Dry runs and explanations change nothing stored.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from typing import TypeVar

from worldinfo import importers
from worldinfo._js import JSONValue, mulberry32
from worldinfo.importers import Imported, Limits
from worldinfo.macros import MacroContext, MacroSettings
from worldinfo.macros.context import system_clock
from worldinfo.server.memory import MemoryCache, PersistedMemory, retriever_settings
from worldinfo.server.prepared import ScanCachePool, UploadCache, UploadKey
from worldinfo.server.sql import Conflict
from worldinfo.server.storage import BookRow, SessionRow, SessionTransaction, Storage
from worldinfo.server.wire import message_from, message_json, persona_from, settings_from
from worldinfo.session import Session
from worldinfo.sources.memory_mode import MemoryPlacement, MemorySource
from worldinfo.types import Book, Character

log = logging.getLogger(__name__)
T = TypeVar("T")
RETRIES = 50
GOLDEN = 0x9E3779B9
MACRO_SALT = 0x5BD1E995
"""``{{random}}`` draws from its own stream, so a macro in a book does not shift the rolls."""


class Busy(Exception):
    """A session kept changing under this request (many writers at once); retry later."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Loaded:
    """What a session's config resolves to in this worker."""

    books: dict[str, Book]
    global_names: list[str]
    character: Character | None
    key: tuple[UploadKey, ...]


def new_id(prefix: str) -> str:
    """An unguessable id (128 random bits)."""
    return f"{prefix}_{secrets.token_urlsafe(16)}"


def turn_seed(seed: int, turn: int) -> int:
    """The random seed of one generation of a session."""
    return (seed + turn * GOLDEN) & 0xFFFFFFFF


class Service:
    """The operations over one storage backend, with this worker's caches.

    Args:
        storage: the backend.
        limits: the importers' bounds for uploads.
    """

    def __init__(self, storage: Storage, *, limits: Limits) -> None:
        self.storage = storage
        self.limits = limits
        self.uploads = UploadCache()
        self.scan_caches = ScanCachePool()
        self.memories = MemoryCache()

    # --- uploads -------------------------------------------------------------------------

    def import_upload(self, owner: str, raw: bytes, *, name: str, trust: bool) -> BookRow:
        """Import an upload (the importers' bounds and trust policy apply) and store it.

        Raises:
            LorebookImportError: naming the upload, its format and every problem.
        """
        imported = importers.load(raw, name=name, trust=trust, limits=self.limits)
        sha = hashlib.sha256(raw).hexdigest()
        self.uploads.get((sha, trust), lambda: imported)
        row = BookRow(
            id=new_id("bk"), owner=owner, sha256=sha, name=name, format=imported.format,
            trust=trust, raw=raw,
        )  # fmt: skip
        self.storage.put_book(row)
        return row

    def imported(self, row: BookRow) -> Imported:
        """The upload as imported, from this worker's cache when it has it (a row read
        without its bytes is read again with them on a miss)."""

        def load() -> Imported:
            raw = row.raw or self.storage.book(row.owner, row.id).raw
            return importers.load(raw, name=row.name, trust=row.trust, limits=self.limits)

        return self.uploads.get((row.sha256, row.trust), load)

    def resolve(self, owner: str, config: Mapping[str, JSONValue]) -> Loaded:
        """Books and character of a session config (raises ``NotFound``)."""
        books: dict[str, Book] = {}
        names: list[str] = []
        key: list[UploadKey] = []
        ids = config.get("books") or []
        assert isinstance(ids, list)
        for book_id in ids:
            row = self.storage.book(owner, str(book_id), raw=False)
            key.append((row.sha256, row.trust))
            for book in self.imported(row).books:
                books[book.name] = book
                names.append(book.name)
        character = None
        card = config.get("character")
        if isinstance(card, str):
            row = self.storage.book(owner, card, raw=False)
            key.append((row.sha256, row.trust))
            imported = self.imported(row)
            character = imported.character
            for book in imported.books:
                books[book.name] = book
        return Loaded(books=books, global_names=names, character=character, key=tuple(key))

    # --- sessions ------------------------------------------------------------------------

    def create_session(self, owner: str, body: Mapping[str, JSONValue]) -> SessionRow:
        """Open a session over stored uploads (raises ``NotFound`` for unknown ids)."""
        config = {k: v for k, v in body.items() if k not in ("chat", "chat_metadata")}
        config.setdefault("seed", secrets.randbits(32))
        chat: list[JSONValue] = list(body.get("chat") or [])
        metadata = dict(body.get("chat_metadata") or {})
        self.resolve(owner, config)  # every id must name one of the owner's uploads
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
        self.storage.create_session(row)
        return row

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
                with (
                    self.storage.session_tx(owner, session_id) as tx,
                    self._session(tx, touched=touched) as session,
                ):
                    out = fn(session, tx.row)
                    row = tx.row
                    tx.save(
                        replace(
                            row,
                            chat=[message_json(m) for m in session.chat],
                            chat_metadata=dict(session.chat_metadata),
                            extra=_extra(session, row.extra),
                            turn=row.turn + 1 if generation else row.turn,
                        )
                    )
                return out
            except Conflict:
                for store_id in touched:
                    self.memories.forget(store_id)
            except BaseException:
                for store_id in touched:
                    self.memories.forget(store_id)
                raise
        raise Busy(f"session {session_id} is changing too fast; retry")

    def peek(self, owner: str, session_id: str, fn: Callable[[Session, SessionRow], T]) -> T:
        """Run ``fn`` on the rebuilt session and store nothing (dry runs, explanations)."""
        for _ in range(RETRIES):
            touched: list[str] = []
            try:
                with (
                    self.storage.session_tx(owner, session_id) as tx,
                    self._session(tx, touched=touched, write=False) as session,
                ):
                    return fn(session, tx.row)
            except Conflict:
                pass
            finally:
                for store_id in touched:
                    self.memories.forget(store_id)
        raise Busy(f"session {session_id} is changing too fast; retry")

    def memory_op(self, owner: str, store_id: str, fn: Callable[[PersistedMemory], T]) -> T:
        """Run ``fn`` on a memory store in one transaction (rerun on a conflicting write)."""
        for _ in range(RETRIES):
            try:
                with (
                    self.storage.memory_tx(owner, store_id) as tx,
                    self.memories.checkout(tx, store_id) as store,
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
        self, tx: SessionTransaction, *, touched: list[str], write: bool = True
    ) -> Iterator[Session]:
        row = tx.row
        config = row.config
        loaded = self.resolve(row.owner, config)
        seed = turn_seed(int(str(config.get("seed", 0))), row.turn)
        persona = config.get("persona")
        settings = config.get("settings")
        trusted = all(trust for _, trust in loaded.key)  # untrusted books' macros store nothing
        globals_ = row.extra.get("global_variables")
        session = Session(
            books=loaded.books,
            settings=settings_from(settings if isinstance(settings, dict) else {}),
            global_books=loaded.global_names,
            character=loaded.character,
            persona=persona_from(persona if isinstance(persona, dict) else {}),
            chat=[message_from(m) for m in row.chat if isinstance(m, dict)],
            chat_metadata=row.chat_metadata,
            max_context=int(str(config.get("max_context", 8192))),
            allow_wi_scan=bool(config.get("allow_wi_scan", False)),
            rng=mulberry32(seed),
            macro_context=MacroContext(clock=system_clock, random=mulberry32(seed ^ MACRO_SALT)),
            macro_settings=MacroSettings(variable_writes=trusted, global_writes=trusted),
            global_variables=globals_ if isinstance(globals_, dict) else None,
        )
        with ExitStack() as stack:
            session.scan_cache = stack.enter_context(self.scan_caches.checkout(loaded.key))
            memory = config.get("memory")
            if isinstance(memory, dict):
                store_id = str(memory.get("store"))
                touched.append(store_id)
                store = stack.enter_context(self.memories.checkout(tx, store_id, write=write))
                session.sources.append(_memory_source(store, memory, row))
            yield session


def _memory_source(
    store: PersistedMemory, memory: Mapping[str, JSONValue], row: SessionRow
) -> MemorySource:
    place = memory.get("placement")
    fields = dict(place) if isinstance(place, dict) else {}
    source = MemorySource(
        store,
        placement=MemoryPlacement(**fields),
        chat_id=row.id,
        ingest=True,
    )
    recent = row.extra.get("memory_recent")
    if isinstance(recent, list):
        source._recent = [int(str(r)) for r in recent]
    speaker = row.extra.get("memory_speaker")
    if isinstance(speaker, str):
        source._speaker = speaker
    return source


def _extra(session: Session, old: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    out = dict(old)
    if session.global_variables:
        out["global_variables"] = dict(session.global_variables)
    for source in session.sources:
        if isinstance(source, MemorySource):
            out["memory_recent"] = list(source._recent)
            out["memory_speaker"] = source._speaker
    return out


def memory_settings_json(settings: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """A memory store's settings as stored (checked by building them once)."""
    retriever_settings(settings)
    return dict(settings)
