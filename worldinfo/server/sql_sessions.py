"""The session tables: one row per session, one row per chat message.

A chat is kept as one row per message (``wi_chat``), so a turn writes only what it changed:
the messages after the longest prefix the old and new chats share (usually the one or two
messages the turn appended), plus the session row's metadata, turn and version. Reading a
whole session reads both tables in one read transaction (a snapshot), so a concurrent write
is never seen half-applied. Schema 1 kept the chat as one JSON text in ``wi_sessions``;
``migrate_chat`` moves such chats into ``wi_chat`` when a worker opens the database.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Sequence
from typing import Any

from worldinfo._js import JSONValue
from worldinfo.server.sql import SqlStorage, dumps
from worldinfo.server.storage import NotFound, SessionRow

_COLS = "id, owner, config, chat_metadata, extra, turn, version"


def shared_prefix(old: Sequence[JSONValue], new: Sequence[JSONValue]) -> int:
    """How many leading messages ``old`` and ``new`` have in common (same object or equal)."""
    n = min(len(old), len(new))
    if all(map(operator.is_, old[:n], new)):  # the usual turn: the same objects, one C pass
        return n
    for i in range(n):
        a, b = old[i], new[i]
        if a is not b and a != b:
            return i
    return n


class SessionTables(SqlStorage):
    """``SqlStorage`` with the session and chat tables."""

    def create_schema(self) -> None:
        """Create the tables if missing, and move a schema-1 database to schema 2."""
        super().create_schema()
        if self.schema_version() == "1":
            self.migrate_chat()

    def _begin_read(self) -> str:
        """A read transaction whose statements all see one snapshot."""
        return "BEGIN"

    def create_session(self, row: SessionRow) -> None:
        """Store a new session."""
        with self.tx(self._begin_write()):
            self.x(
                f"INSERT INTO wi_sessions ({_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    row.id,
                    row.owner,
                    dumps(row.config),
                    dumps(row.chat_metadata),
                    dumps(row.extra),
                    row.turn,
                    row.version,
                ),
            )
            self._insert_chat(row.id, row.chat, start=0)

    def read_version(self, owner: str, session_id: str, *, lock: bool = False) -> int:
        """A session's version (``lock``: ``FOR UPDATE`` in a locking backend)."""
        cur = self.x(
            "SELECT version FROM wi_sessions WHERE owner = ? AND id = ?"
            + (self._lock_suffix() if lock else ""),
            (owner, session_id),
        )
        r = cur.fetchone()
        if r is None:
            raise NotFound("session", session_id)
        return int(r[0])

    def read_session(self, owner: str, session_id: str) -> SessionRow:
        """Read a session row and its chat (inside the caller's transaction)."""
        cur = self.x(
            f"SELECT {_COLS} FROM wi_sessions WHERE owner = ? AND id = ?", (owner, session_id)
        )
        r = cur.fetchone()
        if r is None:
            raise NotFound("session", session_id)
        chat = self.x(
            "SELECT message FROM wi_chat WHERE session_id = ? ORDER BY seq", (session_id,)
        ).fetchall()
        return SessionRow(
            id=r[0],
            owner=r[1],
            config=json.loads(r[2]),
            chat=[json.loads(m[0]) for m in chat],
            chat_metadata=json.loads(r[3]),
            extra=json.loads(r[4]),
            turn=int(r[5]),
            version=int(r[6]),
        )

    def session(self, owner: str, session_id: str) -> SessionRow:
        """Read a session without locking it (raises ``NotFound``)."""
        with self.tx(self._begin_read()):
            return self.read_session(owner, session_id)

    def write_session(self, row: SessionRow, *, old: SessionRow) -> None:
        """Write what changed since ``old`` (read in this transaction) and bump the version."""
        self.x(
            "UPDATE wi_sessions SET chat_metadata = ?, extra = ?, turn = ?, version = ?"
            " WHERE id = ? AND owner = ?",
            (
                dumps(row.chat_metadata),
                dumps(row.extra),
                row.turn,
                row.version + 1,
                row.id,
                row.owner,
            ),
        )
        keep = shared_prefix(old.chat, row.chat)
        if keep < len(old.chat):
            self.x("DELETE FROM wi_chat WHERE session_id = ? AND seq >= ?", (row.id, keep))
        self._insert_chat(row.id, row.chat[keep:], start=keep)

    def _insert_chat(self, session_id: str, messages: Sequence[JSONValue], *, start: int) -> None:
        if not messages:
            return
        params = [(session_id, start + i, dumps(m)) for i, m in enumerate(messages)]
        self.xmany("INSERT INTO wi_chat (session_id, seq, message) VALUES (?, ?, ?)", params)

    def delete_session(self, owner: str, session_id: str) -> None:
        """Delete a session (raises ``NotFound``)."""
        with self.tx(self._begin_write()):
            cur = self.x("DELETE FROM wi_sessions WHERE owner = ? AND id = ?", (owner, session_id))
            if cur.rowcount == 0:
                raise NotFound("session", session_id)
            self.x("DELETE FROM wi_chat WHERE session_id = ?", (session_id,))

    def migrate_chat(self) -> None:
        """Schema 1 to 2, inside the caller's write transaction: chats move to ``wi_chat``."""
        rows: list[Any] = self.x("SELECT id, chat FROM wi_sessions").fetchall()
        for session_id, chat in rows:
            self._insert_chat(session_id, json.loads(chat), start=0)
        self.x("ALTER TABLE wi_sessions DROP COLUMN chat")
        self.x("UPDATE wi_meta SET value = '2' WHERE key = 'schema'")
