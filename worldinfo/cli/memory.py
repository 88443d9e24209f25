"""``worldinfo memory ingest|query|salvage``: the chat-history retriever's store from the CLI.

Store work fails with one ``error:`` line and exit 1 (disk full, read-only, busy, damaged,
missing): ``StoreError`` says which, and any ``sqlite3.Error`` or ``OSError`` that escapes it is
printed the same way, never as a traceback.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path

from worldinfo.cli._inputs import InputError, read_chat, read_inputs
from worldinfo.sources.memory_mode import book_keys
from worldinfo.sources.retriever import Retrieval
from worldinfo.sources.retriever_chat import (
    ChatSync,
    exchanges,
    parse_st_chat,
    read_chat_text,
    st_chat_dates,
)
from worldinfo.sources.retriever_settings import RANKINGS, RetrieverSettings
from worldinfo.sources.retriever_tokenize import lore_tokens
from worldinfo.sources.store_errors import StoreError
from worldinfo.sources.store_rebuild import build_atomically, salvage
from worldinfo.sources.store_sqlite import BUSY_TIMEOUT_S, SqliteStore
from worldinfo.sources.timestamps import TimestampError, parse_timestamp

PROGRESS_EVERY_S = 1.0
PUNCTUATION_HELP = "tokeniser: strip ASCII punctuation only, or all Unicode punctuation"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``memory`` sub-command and its ``ingest``, ``query`` and ``salvage`` actions."""
    p = sub.add_parser("memory", help="chat-history memory store (ingest, query, salvage)")
    acts = p.add_subparsers(dest="memory_command", metavar="ACTION")
    ing = acts.add_parser("ingest", help="ingest SillyTavern .jsonl chats into a store")
    ing.add_argument(
        "chats", nargs="+", metavar="CHAT.jsonl", help="SillyTavern .jsonl chats (or JSON lists)"
    )
    ing.add_argument(
        "--db", required=True, metavar="FILE", help="the SQLite store (created if missing)"
    )
    ing.add_argument("--chat-id", help="identity namespace (default: the file name stem)")
    ing.add_argument(
        "--rebuild", action="store_true", help="rebuild from scratch (chats in sorted order)"
    )
    ing.add_argument(
        "--punctuation", choices=("ascii", "unicode"), default="ascii", help=PUNCTUATION_HELP
    )
    ing.add_argument(
        "--busy-timeout",
        type=float,
        default=BUSY_TIMEOUT_S,
        metavar="SECONDS",
        help=f"wait this long for another process's lock (default: {BUSY_TIMEOUT_S:g})",
    )
    ing.set_defaults(func=run_ingest)
    q = acts.add_parser("query", help="show keywords, scores and the pick for a message")
    q.add_argument("text", metavar="TEXT", help="the user's message to find memories for")
    q.add_argument(
        "--db", required=True, metavar="FILE", help="the SQLite store (only read, never created)"
    )
    q.add_argument("--previous", default="", help="the character's previous reply (default: none)")
    q.add_argument(
        "--lore", action="append", default=[], metavar="KEY", help="a lore key; may repeat"
    )
    q.add_argument(
        "--book",
        action="append",
        default=[],
        metavar="BOOK",
        help="a lorebook (any importable format) whose keys are lore keys; may repeat",
    )
    q.add_argument(
        "--exclusion",
        type=int,
        default=RetrieverSettings().exclusion,
        metavar="N",
        help="the newest N exchanges are never retrieved (0 searches everything)",
    )
    q.add_argument(
        "--character",
        default=RetrieverSettings().character_name,
        metavar="NAME",
        help="the character's name in the retrieved block",
    )
    q.add_argument("--smoothing", action="store_true", help="neighbour-smoothed ranking (F12)")
    q.add_argument("--top", type=int, default=5, metavar="N", help="candidates to list")
    q.add_argument(
        "--punctuation", choices=("ascii", "unicode"), default="ascii", help=PUNCTUATION_HELP
    )
    q.add_argument("--json", action="store_true", help="print one JSON object")
    q.add_argument(
        "--ranking",
        choices=RANKINGS,
        default="zwaif",
        help="retrieval mode: Z-Waif's (exact) or BM25 with dates (default: zwaif)",
    )
    q.add_argument(
        "--now",
        metavar="ISO",
        help="the present for relative dates (default: the newest record's date)",
    )
    q.set_defaults(func=run_query)
    s = acts.add_parser("salvage", help="recover every readable exchange into a new store")
    s.add_argument("src", metavar="SRC.db", help="the damaged store (only read)")
    s.add_argument("-o", "--output", required=True, metavar="DST.db", help="the new store")
    s.add_argument(
        "--punctuation",
        choices=("ascii", "unicode"),
        default="ascii",
        help="tokeniser mode if SRC no longer records it",
    )
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=run_salvage)

    def usage(_args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=usage)


STORE_ERRORS = (StoreError, sqlite3.Error, OSError)
"""What store work may raise; the CLI prints each as one line."""


def _fail(exc: BaseException) -> int:
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.filename or 'store'}: {exc.strerror}"
    elif isinstance(exc, StoreError | ValueError | InputError):
        text = str(exc)
    else:
        text = f"{type(exc).__name__}: {exc}"
    print(f"error: {' '.join(text.split())}", file=sys.stderr)
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
        return _fail(exc)
    print(f"{target}: {size} records")
    return 0


def _lore(args: argparse.Namespace) -> frozenset[str]:
    keys: list[str] = list(args.lore)
    if args.book:
        keys.extend(book_keys(list(read_inputs(args.book, chat=None).books.values())))
    return lore_tokens(keys, punctuation=args.punctuation)


def _as_json(r: Retrieval, divisor: int) -> dict[str, object]:
    return {
        "keywords": [
            {
                "word": k.word,
                "score": float(k.score),
                "count": k.count,
                "from_reply": k.from_reply,
                "lore": k.lore,
            }
            for k in r.keywords
        ],
        "ranked": [
            {
                "record": s.record_id,
                "score": s.s115 / divisor,
                "s115": s.s115,
                "rank": s.rank,
                "matches": list(s.matches),
                "kept": list(s.kept),
            }
            for s in r.ranked
        ],
        "pick": None if r.pick is None else {"record": r.pick.id, "source_ref": r.pick.source_ref},
        "window": [rec.id for rec in r.window],
        "block": r.block,
        "hits": [
            {
                "source_ref": h.source_ref,
                "timestamp": h.timestamp.isoformat() if h.timestamp else None,
                "score": h.score,
            }
            for h in r.hits
        ],
        "days": [d.isoformat() for d in r.days] if r.days else None,
        "note": r.note,
    }


def run_query(args: argparse.Namespace) -> int:
    """Query a store and show the keywords, the ranked candidates and the pick."""
    settings = RetrieverSettings(
        exclusion=args.exclusion,
        character_name=args.character,
        smoothing=args.smoothing,
        punctuation=args.punctuation,
        ranking=args.ranking,
    )
    try:
        lore = _lore(args)
        now = parse_timestamp(args.now) if args.now else None
        with SqliteStore(args.db, settings=settings, readonly=True) as store:
            r = store.retrieve(args.text, args.previous, lore=lore, top=args.top, now=now)
    except (ValueError, TimestampError, InputError, *STORE_ERRORS) as exc:
        return _fail(exc)
    div = settings.length_divisor
    if args.json:
        print(json.dumps(_as_json(r, div), ensure_ascii=False, sort_keys=True))
        return 0
    print("keywords:")
    for k in r.keywords:
        src = "reply" if k.from_reply else "user"
        lore_tag = " lore" if k.lore else ""
        print(f"  {k.word:<24} {float(k.score):.6f}  count {k.count}  ({src}{lore_tag})")
    if not r.keywords:
        print("  (none)")
    if r.days:
        print(f"date: {r.days[0].isoformat()} .. {r.days[1].isoformat()}")
    print("candidates:")
    for s in r.ranked:
        print(
            f"  #{s.record_id:<8} score {s.s115 / div:+.6f} (S115 {s.s115}, matches "
            f"{s.matches[0]}+{s.matches[1]}, kept {s.kept[0]}+{s.kept[1]})"
        )
    if args.ranking == "ranked":
        for h in r.hits:
            when = h.timestamp.isoformat() if h.timestamp else "undated"
            print(f"  {h.source_ref}  {when}  score {h.score:.4f}")
    if r.pick is None:
        print("  (none)\npick: no memory" + (f" ({r.note})" if r.note else ""))
        return 0
    print(f"pick: #{r.pick.id} {r.pick.source_ref}\n\n{r.block}")
    return 0


def run_salvage(args: argparse.Namespace) -> int:
    """Recover every readable exchange of a damaged store into a new one."""
    try:
        report = salvage(args.src, args.output, punctuation=args.punctuation)
    except STORE_ERRORS as exc:
        return _fail(exc)
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


__all__ = ["register"]
