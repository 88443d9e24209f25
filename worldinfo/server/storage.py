"""The storage contract: books (uploads), sessions and memory stores, owned by a principal.

One contract, two backends (``store_sqlite.SqliteStorage``: one file, nothing to start;
``store_pg.PgStorage``: PostgreSQL through psycopg 3, shared by several workers or machines).
The contract tests (``tests/test_server_storage.py``) run against both.

Every row carries its ``owner`` (a hash of the bearer token, ``""`` without tokens), and every
read names the owner: a row of another owner is reported as absent. Changes to one session
happen inside ``session_tx``, which holds the session's lock until the transaction ends (a
row lock in PostgreSQL, the write lock in SQLite): two requests for the same session are
serialised, and nothing is acknowledged before it is committed.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from worldinfo._js import JSONValue


class StorageError(Exception):
    """The database could not be used (opening, schema, a failed transaction)."""


class NotFound(Exception):
    """No row with that id for this owner (another owner's rows are not found either)."""

    def __init__(self, kind: str, ident: str) -> None:
        self.kind = kind
        self.ident = ident
        super().__init__(f"no {kind} {ident!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class BookRow:
    """One imported upload, kept as the bytes that were sent (re-imported on a cache miss).

    Args:
        id: the server-made id.
        owner: the owning principal.
        sha256: the content hash of ``raw`` (the prepared-book cache key, with ``trust``).
        name: the upload's file name (a label: never used as a path).
        format: the format it was read as.
        trust: whether it was imported trusted.
        raw: the uploaded bytes.
    """

    id: str
    owner: str
    sha256: str
    name: str
    format: str
    trust: bool
    raw: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionRow:
    """One chat's stored state.

    Args:
        id: the server-made id (unguessable).
        owner: the owning principal.
        config: what the session was opened with (books, character, settings, persona, ...).
        chat: the messages, oldest first, as JSON objects.
        chat_metadata: the chat's metadata, ``timedWorldInfo`` included.
        extra: state an activation source keeps across turns (the memory source's recent picks).
        turn: how many generations ran (the random stream of each is derived from it).
        version: bumped by every committed change.
    """

    id: str
    owner: str
    config: dict[str, JSONValue]
    chat: list[JSONValue]
    chat_metadata: dict[str, JSONValue]
    extra: dict[str, JSONValue]
    turn: int = 0
    version: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryRecordRow:
    """One stored exchange of a memory store (tokens are derived again on load)."""

    id: int
    source_ref: str
    user: str
    reply: str
    timestamp: str | None = None
    """ISO 8601, when the exchange happened (``None``: unknown)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryRow:
    """A memory store's head: its retriever settings and version."""

    id: str
    owner: str
    settings: dict[str, JSONValue]
    version: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryChanges:
    """What one transaction did to a memory store: records added, source refs deleted."""

    added: Sequence[MemoryRecordRow] = ()
    deleted: Sequence[str] = ()


class Transaction(Protocol):
    """Reads and writes inside one locked transaction (``session_tx`` / ``memory_tx``)."""

    def memory(self, store_id: str) -> MemoryRow:
        """Lock and read a memory store's head (raises ``NotFound``)."""
        ...

    def memory_records(self, store_id: str) -> list[MemoryRecordRow]:
        """Every live record of a store, oldest first."""
        ...

    def change_memory(self, store_id: str, changes: MemoryChanges) -> int:
        """Apply ``changes`` and bump the store's version; return the new version."""
        ...


class SessionTransaction(Transaction, Protocol):
    """A transaction holding one session's lock."""

    row: SessionRow

    def save(self, row: SessionRow) -> None:
        """Write the session back (its version is bumped on commit); only what differs from
        ``row`` as read is written (the chat from the first message that changed)."""
        ...


class Storage(Protocol):
    """The storage contract every backend implements."""

    def put_book(self, row: BookRow) -> None:
        """Store an upload."""
        ...

    def book(self, owner: str, book_id: str, *, raw: bool = True) -> BookRow:
        """An upload by id (raises ``NotFound``); ``raw=False`` leaves ``raw`` empty."""
        ...

    def books(self, owner: str) -> list[BookRow]:
        """The owner's uploads, oldest first."""
        ...

    def create_session(self, row: SessionRow) -> None:
        """Store a new session."""
        ...

    def session(self, owner: str, session_id: str) -> SessionRow:
        """Read a session without locking it (raises ``NotFound``)."""
        ...

    def session_tx(
        self, owner: str, session_id: str, *, known: SessionRow | None = None
    ) -> AbstractContextManager[SessionTransaction]:
        """Lock a session for one read-modify-write; commit on success, roll back on error.

        ``known``: this session as this worker last read or wrote it; it is the
        transaction's ``row`` when the stored version is still its version (only the
        version is read then), else the stored row is read.
        """
        ...

    def delete_session(self, owner: str, session_id: str) -> None:
        """Delete a session (raises ``NotFound``)."""
        ...

    def create_memory(self, row: MemoryRow) -> None:
        """Store a new, empty memory store."""
        ...

    def memory_tx(self, owner: str, store_id: str) -> AbstractContextManager[Transaction]:
        """A transaction for one memory store's changes (raises ``NotFound``)."""
        ...

    def memory_head(self, owner: str, store_id: str) -> MemoryRow:
        """A memory store's head without locking (raises ``NotFound``)."""
        ...

    def memory_records(self, owner: str, store_id: str) -> list[MemoryRecordRow]:
        """Every live record of a store, oldest first (raises ``NotFound``)."""
        ...

    def close(self) -> None:
        """Release this process's connections."""
        ...
