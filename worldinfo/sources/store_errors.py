"""Typed errors of the chat-memory store, and the mapping from SQLite's result codes to them.

Every failure of store work reaches the caller as one ``StoreError`` subclass whose message
names the file and says what happened in words (disk full, read-only, busy, damaged), so the
CLI can print one line and a library user can tell the cases apart without parsing SQLite's
text. SQLite's own message is kept at the end in parentheses.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

# SQLite primary result codes (the low byte of an extended code).
DETAIL_CHARS = 200
"""SQLite's message is cut to this many characters (it can quote a whole stored text)."""

_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26


class StoreError(Exception):
    """The store cannot be used: not a chat-memory store, or one of the subclasses' reasons."""


class StoreCorruptError(StoreError):
    """The file is a damaged store (``worldinfo memory salvage`` recovers what is readable)."""


class StoreBusyError(StoreError):
    """Another process held the store's write lock for longer than the busy timeout."""


class StoreWriteError(StoreError):
    """The store could not be written (disk full, read-only, I/O error); it is unchanged."""


class StoreMissingError(StoreError):
    """A store that must exist (for a query) is missing or empty; nothing was created."""


def _readonly_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # pragma: no cover - no statvfs (Windows)
        return False


def _disk_full(path: Path) -> bool:
    try:
        return os.statvfs(path.parent).f_bavail == 0
    except (OSError, AttributeError):  # pragma: no cover - no statvfs (Windows)
        return False


def salvage_hint(path: Path) -> str:
    """The sentence that tells a user how to recover a damaged store."""
    return f"run `worldinfo memory salvage {path} -o NEW.db` to recover the readable exchanges"


def typed_error(exc: sqlite3.Error, path: Path, *, doing: str, damaged: bool = False) -> StoreError:
    """Turn a ``sqlite3.Error`` raised while ``doing`` something into a typed store error.

    Args:
        exc: SQLite's exception.
        path: the store's file.
        doing: what was being done, e.g. ``"store the exchange"``.
        damaged: whether an error without a SQLite code (a stored text that is not UTF-8)
            means the store is damaged (true while reading the store's rows).

    Returns:
        The ``StoreError`` subclass for the result code (the caller raises it ``from exc``).
    """
    code = getattr(exc, "sqlite_errorcode", None)
    primary = -1 if code is None else code & 0xFF
    text = str(exc)
    detail = f"({text[:DETAIL_CHARS]}...)" if len(text) > DETAIL_CHARS else f"({text})"
    if primary in (_BUSY, _LOCKED):
        return StoreBusyError(
            f"{path}: store busy (another process kept it locked past the busy timeout): "
            f"could not {doing} {detail}"
        )
    if primary == _FULL:
        return StoreWriteError(
            f"{path}: disk full: could not {doing}; the store is intact {detail}"
        )
    if primary == _READONLY:
        why = "read-only filesystem" if _readonly_fs(path) else "read-only"
        return StoreWriteError(f"{path}: {why}: could not {doing}; the store is intact {detail}")
    if primary == _IOERR:
        why = "disk full" if _disk_full(path) else "I/O error (file-size limit or device error)"
        return StoreWriteError(f"{path}: {why}: could not {doing}; the store is intact {detail}")
    if primary == _CANTOPEN:
        why = "read-only filesystem" if _readonly_fs(path) else "cannot open"
        return StoreWriteError(f"{path}: {why}: could not {doing} {detail}")
    if primary == _CORRUPT or (code is None and damaged):
        return StoreCorruptError(f"{path}: damaged store: {detail}; {salvage_hint(path)}")
    if primary == _NOTADB:
        return StoreError(f"{path}: not a chat-memory database {detail}")
    return StoreError(f"{path}: could not {doing} {detail}")
