"""``worldinfo memory ingest`` and ``salvage``: writing a retriever store from the CLI.

Store work fails with one ``worldinfo memory:`` line and exit 1 (disk full, read-only, busy, damaged,
missing): ``StoreError`` says which, and any ``sqlite3.Error`` or ``OSError`` that escapes it is
printed the same way, never as a traceback (``fail``, used by ``memory query`` too).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path

from worldinfo.cli._conventions import cannot_read
from worldinfo.cli._inputs import InputError, read_chat
from worldinfo.sources.retriever_chat import (
    ChatSync,
    exchanges,
    parse_st_chat,
    read_chat_text,
    st_chat_dates,
)
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.store_errors import StoreError
from worldinfo.sources.store_rebuild import build_atomically, salvage
from worldinfo.sources.store_sqlite import SqliteStore

PROGRESS_EVERY_S = 1.0


STORE_ERRORS = (StoreError, sqlite3.Error, OSError)
"""What store work may raise; the CLI prints each as one line."""


def fail(exc: BaseException) -> int:
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename or 'store'}: {exc.strerror}"
    elif isinstance(exc, StoreError | ValueError | InputError):
        text = str(exc)
    else:
        text = f"{type(exc).__name__}: {exc}"
    print(f"worldinfo memory: {' '.join(text.split())}", file=sys.stderr)
    return 1


def _ingest_into(
    store: SqliteStore, chat: Path, chat_id: str, *, adopt: bool
) -> tuple[int, int, int]:
    dates = None
    if chat.suffix == ".jsonl":
        try:
            text = read_chat_text(chat)
            _, messages = parse_st_chat(text)
            dates = st_chat_dates(text)
        except OSError as exc:
            raise ValueError(cannot_read(str(chat), exc)) from exc
        except ValueError as exc:
            raise ValueError(f"{chat}: {exc}") from exc
    else:
        try:
            messages, _ = read_chat(str(chat))
        except InputError as exc:
            raise ValueError(str(exc)) from exc
    last = [time.monotonic()]

    def progress(done: int, total: int) -> None:
        if time.monotonic() - last[0] >= PROGRESS_EVERY_S:
            last[0] = time.monotonic()
            print(f"  {chat.name}: {done}/{total}", file=sys.stderr, flush=True)

    sync = ChatSync(store, chat_id=chat_id, adopt=adopt)
    ingested, deleted = sync.sync(messages, progress=progress, dates=dates)
    return ingested, deleted, len(exchanges(messages, chat_id=sync.chat_id))


def run_ingest(args: argparse.Namespace) -> int:
    """Ingest chats, 500 exchanges per transaction (``ChatSync``; F15, F18).

    ``--rebuild`` builds a new store beside the old one and swaps it in atomically.
    """
    settings = RetrieverSettings(punctuation=args.punctuation)
    chats = sorted(map(Path, args.chats)) if args.rebuild else [Path(c) for c in args.chats]
    target = Path(args.db)

    def fill(store: SqliteStore) -> int:
        for chat in chats:
            chat_id = args.chat_id or chat.stem
            ing, dele, total = _ingest_into(
                store, chat, chat_id, adopt=args.chat_id is None and not args.rebuild
            )
            print(f"{chat}: {total} exchanges, {ing} ingested, {dele} deleted")
        store.refresh()  # other processes may have written meanwhile
        return len(store)

    try:
        if args.rebuild:
            size = build_atomically(target, fill, settings=settings)
        else:
            with SqliteStore(target, settings=settings, busy_timeout=args.busy_timeout) as store:
                size = fill(store)
    except (ValueError, *STORE_ERRORS) as exc:
        return fail(exc)
    print(f"{target}: {size} records")
    return 0


def run_salvage(args: argparse.Namespace) -> int:
    """Recover every readable exchange of a damaged store into a new one."""
    try:
        report = salvage(args.src, args.output, punctuation=args.punctuation)
    except STORE_ERRORS as exc:
        return fail(exc)
    if args.json:
        fields = ("recovered", "lost", "skipped", "punctuation", "notes")
        print(json.dumps({f: getattr(report, f) for f in fields}, sort_keys=True))
        return 0
    print(
        f"{args.output}: {report.recovered} exchanges recovered, up to {report.lost} lost "
        f"(unreadable), {report.skipped} skipped"
    )
    for note in report.notes:
        print(f"  note: {note}")
    return 0
