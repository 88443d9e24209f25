"""``worldinfo scan``: run one World Info scan over books/cards and a chat."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from worldinfo._js import JSONValue, canonical
from worldinfo.cli._commands import help_of
from worldinfo.cli._conventions import STDIO, UsageError, add_json_flag, print_json
from worldinfo.cli._inputs import InputError, open_session, where_scan_stopped
from worldinfo.cli._scan_options import add_scan_options
from worldinfo.result import ScanResult
from worldinfo.session import Session
from worldinfo.sources.rankings import RANKINGS


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``scan`` sub-command."""
    p = sub.add_parser(
        "scan",
        help=help_of("scan"),
        description="Books are any importable lorebook file (world JSON, cards, NovelAI, "
        "Risu, Agnai, Kobold); world files are selected globally, a card's book is bound "
        "to its character.",
    )
    p.add_argument("books", nargs="+", metavar="BOOK_OR_CARD")
    add_scan_options(p)
    p.add_argument(
        "--memory",
        metavar="DB",
        help="add the chat-history retriever: an existing SQLite store (made by `worldinfo "
        "memory ingest`), only read; the scan neither creates nor changes it",
    )
    p.add_argument(
        "--memory-ingest",
        action="store_true",
        help="let --memory write: create the store if missing and sync the chat into it "
        "first (its finished exchanges added, this chat's vanished ones deleted)",
    )
    p.add_argument(
        "--memory-ranking",
        choices=RANKINGS,
        default="zwaif",
        help="the retriever's mode for --memory (ranked: BM25 with dates)",
    )
    p.add_argument(
        "--memory-mode",
        choices=("memories", "entries"),
        default="memories",
        help="--memory injects retrieved exchanges (memories) or force-activates entries "
        "marked vectorized (entries)",
    )
    add_json_flag(p, "the full result (ScanResult.to_json, activated_entries, chat_metadata)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the scan and print it."""
    try:
        session = open_session(args)
    except InputError as exc:
        print(f"worldinfo scan: {exc}", file=sys.stderr)
        return 1
    if args.memory == STDIO:
        raise UsageError("--memory: a SQLite store is a file; it cannot be read from stdin")
    if args.memory_ingest and not args.memory:
        raise UsageError("--memory-ingest: give the store with --memory DB")
    failures: tuple[type[Exception], ...] = (OSError,)
    missing: tuple[type[Exception], ...] = ()  # a store that is not there
    try:
        if args.memory:  # the store's modules (and sqlite3) only when asked for: start-up
            import sqlite3

            from worldinfo.sources.memory_open import memory_source
            from worldinfo.sources.store_errors import StoreError, StoreMissingError

            failures = (StoreError, sqlite3.Error, OSError)
            missing = (StoreMissingError,)

            from pathlib import Path

            chat_id = Path(args.chat).stem if args.chat and args.chat != STDIO else "chat"
            session.sources.append(
                memory_source(
                    args.memory,
                    chat_id=chat_id,
                    ranking=args.memory_ranking,
                    mode=args.memory_mode,
                    ingest=args.memory_ingest,
                    readonly=not args.memory_ingest,
                )
            )
        result = session.generate(args.type)
    except failures as exc:  # the memory store's work
        text = " ".join(str(exc).split())
        if isinstance(exc, missing):
            text += f"; make one with `worldinfo memory ingest CHAT --db {args.memory}`"
            text += ", or scan with --memory-ingest"
        print(f"worldinfo scan: {text}", file=sys.stderr)
        return 1
    stops = where_scan_stopped(session.books, result.error) if result.error else []
    if args.json:
        out = result_json(session, result)
        if result.error:
            out["error_at"] = list(stops)
        print_json(out)
    else:
        print(render(result))
    for line in stops:
        print(f"worldinfo scan: {line}", file=sys.stderr)
    return 1 if result.error else 0


def result_json(session: Session, result: ScanResult) -> dict[str, JSONValue]:
    """The full result: activated entries with their fields, pieces, timed state."""
    out = result.to_json()
    out["activated_entries"] = [canonical(dict(e)) for e in result.activated]
    out["chat_metadata"] = canonical(session.chat_metadata)
    return out


def _section(title: str, lines: Sequence[str]) -> list[str]:
    return [f"== {title} ==", *lines, ""] if lines else []


def render(result: ScanResult) -> str:
    """The prompt pieces as readable text."""
    if result.error:
        return f"SillyTavern would stop here with an error: {result.error}"
    lines = [
        f"Activated {len(result.activated)} entr{'y' if len(result.activated) == 1 else 'ies'}:"
    ]
    for e in result.activated:
        title = e.get("comment") or ", ".join(map(str, e.get("key") or [])) or "(no title)"
        lines.append(f"  {e.get('world')}#{e.get('uid')}  {title}")
    lines.append("")
    lines += _section("before character (worldInfoBefore)", result.before.splitlines())
    lines += _section("after character (worldInfoAfter)", result.after.splitlines())
    for g in result.depth:
        lines += _section(f"at depth {g.depth}, role {g.role}", list(g.entries))
    lines += _section("Author's Note top", list(result.an_before))
    lines += _section("Author's Note bottom", list(result.an_after))
    if result.an_prompt is not None:
        lines += _section("Author's Note as written back", result.an_prompt.splitlines())
    lines += _section(
        "example messages",
        [f"[{'before' if x.position == 0 else 'after'}] {x.content}" for x in result.examples],
    )
    for name, contents in result.outlets.items():
        lines += _section(f"outlet {name!r}", list(contents))
    lines += _section("warnings", list(result.warnings))
    return "\n".join(lines).rstrip() + "\n"
