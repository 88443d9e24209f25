"""Whole-store operations: build a store atomically in place of another, salvage a damaged one.

``build_atomically`` builds into a temporary file in the target's directory, folds the WAL
into it, fsyncs it and ``os.replace``-s it over the target: at every moment the target path
holds either the old store or the new one (F18). ``salvage`` reads every record that SQLite
can still read from a damaged store -- row by row, stepping over unreadable pages -- and
ingests them, in their order, into a new store (their tokens are recomputed from the texts,
so a damaged word table loses nothing). Records the b-tree can no longer reach are looked for
on the file's pages (``store_pages``).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from worldinfo._record import record
from worldinfo.sources.retriever_chat import INGEST_CHUNK, Exchange
from worldinfo.sources.retriever_settings import Punctuation, RetrieverSettings
from worldinfo.sources.store_errors import StoreCorruptError, StoreError, StoreWriteError
from worldinfo.sources.store_open import (
    connect_readonly,
    fsync_path,
    remove_database,
    remove_side_files,
)
from worldinfo.sources.store_pages import leaf_rows
from worldinfo.sources.store_schema import has_timestamps
from worldinfo.sources.store_sqlite import BUSY_TIMEOUT_S, SqliteStore

log = logging.getLogger(__name__)

T = TypeVar("T")

MAX_UNREADABLE_RUN = 100_000
"""Salvage stops after this many ids in a row could not be read past the last known id."""

_COLS = "id, source_ref, user, reply, {stamp}"


def _retire_wal(target: Path) -> None:
    """Fold and remove the old store's WAL so it can never be replayed onto the new file."""
    if not any(os.path.exists(f"{target}{s}") for s in ("-wal", "-shm")):
        return
    try:
        con = sqlite3.connect(target, timeout=1.0)
        try:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            con.close()
    except sqlite3.Error as exc:  # the old store is being replaced: its WAL is not needed
        log.info("%s: old WAL not checkpointed (%s); removed", target, exc)
    remove_side_files(target)


def build_atomically(
    target: str | Path, build: Callable[[SqliteStore], T], *, settings: RetrieverSettings
) -> T:
    """Build a new store with ``build`` and swap it in for ``target`` atomically.

    Args:
        target: the store to create or replace (its permissions are kept).
        build: fills the new, empty store; its result is returned.
        settings: the new store's settings.

    Returns:
        What ``build`` returned.

    Raises:
        StoreError: the new store could not be written; ``target`` is untouched.
        OSError: the temporary file could not be created or moved into place.
    """
    target = Path(target)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise StoreWriteError(
            f"{target}: cannot create the new store beside it ({exc.strerror}); the store is intact"
        ) from exc
    os.close(fd)
    tmp = Path(name)
    try:
        try:
            mode = target.stat().st_mode & 0o777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        try:
            with SqliteStore(tmp, settings=settings, check=False) as store:
                result = build(store)
                store.seal()
        except StoreError as exc:
            text = str(exc).removeprefix(f"{tmp}: ").replace(str(tmp), "the new store")
            raise type(exc)(f"{target}: not replaced: {text}") from exc
        fsync_path(tmp)
        _retire_wal(target)
        os.replace(tmp, target)
        fsync_path(target.parent, directory=True)
    except BaseException:
        remove_database(tmp)
        raise
    return result


@record
class SalvageReport:
    """What ``salvage`` recovered.

    Args:
        recovered: exchanges written into the new store.
        lost: record ids that could not be read (at most this many exchanges were lost:
            some of those ids may have been deleted records).
        skipped: readable rows not stored (a repeated identity or a system exchange).
        punctuation: the tokeniser mode of the new store.
        notes: what else was found (an unreadable table, a guessed setting).
    """

    recovered: int
    lost: int
    skipped: int
    punctuation: str
    notes: tuple[str, ...]


def _upper_bound(db: sqlite3.Connection) -> int | None:
    found: list[int] = []
    for query in (
        "SELECT seq FROM sqlite_sequence WHERE name = 'records'",
        "SELECT max(id) FROM records",
    ):
        try:
            row = db.execute(query).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row is not None and isinstance(row[0], int):
            found.append(row[0])
    return max(found) if found else None


def readable_records(db: sqlite3.Connection, lost: list[int]) -> Iterator[tuple[object, ...]]:
    """Yield every readable row of ``records`` in id order; append unreadable ids to ``lost``.

    A range read runs until SQLite reports a damaged page (or a text that is not UTF-8);
    the next id is then read on its own, and the range read resumes after it.
    """
    top = _upper_bound(db)
    try:
        cols = _COLS.format(stamp="timestamp" if has_timestamps(db) else "NULL")
    except sqlite3.DatabaseError:
        cols = _COLS.format(stamp="NULL")
    pos, misses = 0, 0
    while True:
        try:
            for row in db.execute(f"SELECT {cols} FROM records WHERE id > ? ORDER BY id", (pos,)):
                pos, misses = int(row[0]), 0
                yield tuple(row)
            return
        except sqlite3.DatabaseError:
            pass
        pos += 1
        misses += 1
        try:
            row = db.execute(f"SELECT {cols} FROM records WHERE id = ?", (pos,)).fetchone()
        except sqlite3.DatabaseError:
            lost.append(pos)
        else:
            if row is not None:
                yield tuple(row)
        if (top is not None and pos >= top) or (top is None and misses > MAX_UNREADABLE_RUN):
            return


def _punctuation(db: sqlite3.Connection, default: Punctuation, notes: list[str]) -> Punctuation:
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'punctuation'").fetchone()
    except sqlite3.DatabaseError as exc:
        row = None
        notes.append(f"meta table unreadable ({exc})")
    if row is not None and row[0] == "ascii":
        return "ascii"
    if row is not None and row[0] == "unicode":
        return "unicode"
    notes.append(f"tokeniser mode not readable; used punctuation={default!r}")
    return default


def _is_record(cols: list[object]) -> bool:
    """Whether decoded columns have the shape of a ``records`` row (id alias stored as NULL)."""
    return (
        len(cols) >= 6  # a column added later (ALTER TABLE) makes newer rows longer
        and cols[0] is None
        and all(isinstance(c, str) for c in cols[1:4])
        and all(isinstance(c, bytes) for c in cols[4:6])
        and all(c is None or isinstance(c, str) for c in cols[6:7])  # v2: timestamp
    )


def _timestamp_or_none(value: object) -> datetime | None:
    """A stored timestamp, or ``None`` where it is missing or unreadable (the text is kept)."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def salvage(
    src: str | Path, dst: str | Path, *, punctuation: Punctuation = "ascii"
) -> SalvageReport:
    """Recover every readable exchange of ``src`` into a new store ``dst``.

    Args:
        src: the damaged store (only read, never written).
        dst: the new store; must not exist.
        punctuation: the tokeniser mode to use if ``src`` no longer says which it had.

    Returns:
        Counts of recovered, lost and skipped exchanges.

    Raises:
        StoreError: ``dst`` exists, or nothing of ``src`` is readable as SQLite.
    """
    src, dst = Path(src), Path(dst)
    if dst.exists():
        raise StoreError(f"{dst}: already exists; salvage writes a new store")
    db = connect_readonly(src, timeout=BUSY_TIMEOUT_S)
    try:
        try:
            db.execute("SELECT name FROM sqlite_master").fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreCorruptError(f"{src}: the schema is unreadable ({exc})") from exc
        notes: list[str] = []
        mode = _punctuation(db, punctuation, notes)
        lost: list[int] = []
        rows = list(readable_records(db, lost))
        missing = set(lost)
        if missing:  # the b-tree could not reach them: look for their cells page by page
            for rowid, cols in leaf_rows(src.read_bytes()):
                if rowid in missing and _is_record(cols):
                    rows.append((rowid, *cols[1:4], cols[6] if len(cols) > 6 else None))
                    missing.discard(rowid)
            rows.sort(key=lambda row: int(str(row[0])))
        counts = [0, 0]

        def fill(store: SqliteStore) -> None:
            good = [
                Exchange(
                    source_ref=ref, user=user, reply=reply, timestamp=_timestamp_or_none(stamp)
                )
                for _rid, ref, user, reply, stamp in rows
                if isinstance(ref, str) and isinstance(user, str) and isinstance(reply, str)
            ]
            counts[1] += len(rows) - len(good)
            for start in range(0, len(good), INGEST_CHUNK):
                got = store.ingest_many(good[start : start + INGEST_CHUNK])
                stored = sum(rec is not None for rec in got)
                counts[0] += stored
                counts[1] += len(got) - stored

        build_atomically(dst, fill, settings=RetrieverSettings(punctuation=mode))
    finally:
        db.close()
    if missing:
        notes.append(f"unreadable record ids: {min(missing)}..{max(missing)}")
    if len(missing) < len(lost):
        notes.append(f"{len(lost) - len(missing)} read from their pages past a damaged b-tree")
    return SalvageReport(
        recovered=counts[0],
        lost=len(missing),
        skipped=counts[1],
        punctuation=mode,
        notes=tuple(notes),
    )
