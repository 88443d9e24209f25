"""``worldinfo replay BOOK_OR_CARD... --chat CHAT...``: does each entry pull its weight?

Replays every turn of the chats through a ``Session`` (settings from ``--settings`` and the
flags, timed effects carried turn to turn) and reports per entry what it did (turns fired,
how, tokens, cuts) and per turn the tokens used against the budget. ``--json`` prints the
figures as JSON; ``--html FILE`` writes the picture (see ``worldinfo.replay.html``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from worldinfo._js import JSONValue
from worldinfo.cli._atomic import STDOUT, OutputError, write_text_atomic
from worldinfo.cli._commands import help_of
from worldinfo.cli._inputs import InputError, Inputs, build_session, read_chat, read_inputs
from worldinfo.cli._replay_text import render_text
from worldinfo.cli._scan_options import add_scan_options
from worldinfo.replay import ReplayStats, TurnRecord, catalog, collect, replay_chat, stats_json
from worldinfo.types import Settings


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``replay`` sub-command."""
    p = sub.add_parser(
        "replay",
        help=help_of("replay"),
        description="Replay every turn of the chats against books/cards (any importable "
        "format) and report per entry how often it fired, how, its tokens and its cuts, "
        "and per turn the tokens used against the budget.",
        conflict_handler="resolve",
    )
    p.add_argument("books", nargs="+", metavar="BOOK_OR_CARD")
    add_scan_options(p)
    p.add_argument(
        "--chat",
        nargs="+",
        action="extend",
        required=True,
        metavar="CHAT",
        help="SillyTavern .jsonl chats or JSON lists of messages, replayed one after another",
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument(
        "--html",
        metavar="FILE",
        help="also write the report as one HTML file (-: the HTML goes to stdout and the report to stderr)",
    )
    p.add_argument("--turns", action="store_true", help="list every turn in the text report")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Replay the chats and print the report."""
    try:
        stats = replay_files(args)
    except InputError as exc:
        print(f"worldinfo replay: {exc}", file=sys.stderr)
        return 1
    if args.html:
        from worldinfo.replay.html import render_html

        try:
            write_text_atomic(args.html, render_html(stats, title=_title(args)))
        except OutputError as exc:
            print(f"worldinfo replay: {exc}", file=sys.stderr)
            return 1
    report = sys.stderr if args.html == STDOUT else sys.stdout
    if args.json:
        print(json.dumps(stats_json(stats), ensure_ascii=False, indent=1), file=report)
    else:
        print(render_text(stats, every_turn=args.turns), end="", file=report)
    return 1 if any(t.error for t in stats.turns) else 0


def replay_files(args: argparse.Namespace) -> ReplayStats:
    """Replay ``args.chat`` against ``args.books`` (see ``replay_paths``)."""
    return replay_paths(args.books, args.chat, args)


def replay_paths(
    books: Sequence[str],
    chats: Sequence[str],
    args: argparse.Namespace,
    *,
    settings: Settings | None = None,
) -> ReplayStats:
    """Read books/cards and chats and replay every chat in a fresh session.

    Args:
        books: book or card files.
        chats: chat files, replayed one after another.
        args: the command line (settings flags, ``--max-context``, ``--seed``, ``--type``).
        settings: settings to use instead of those ``args`` give.

    Raises:
        InputError: a file cannot be read.
    """
    trust = not getattr(args, "untrusted", False)
    inputs = read_inputs(books, chat=None, trust=trust)
    turns: list[TurnRecord] = []
    names: list[str] = []
    for chat in chats:
        messages, metadata = read_chat(chat, trust=trust)
        metadata = {k: v for k, v in metadata.items() if k != "timedWorldInfo"}
        fresh = Inputs(
            books=inputs.books,
            global_names=inputs.global_names,
            character=inputs.character,
            chat=[],
            chat_metadata=metadata,
        )
        session = build_session(fresh, args)
        if settings is not None:
            session.settings = settings
        names = session.selection_names()
        turns += replay_chat(
            session,
            messages,
            chat=Path(chat).name,
            types=_gen_types(chat, len(messages)),
            default_type=getattr(args, "type", "normal"),
            first_index=len(turns),
            progress=ProgressBar(Path(chat).name) if sys.stderr.isatty() else None,
        )
    return collect(turns, catalog(inputs.books, names or inputs.global_names))


def _gen_types(path: str, count: int) -> list[str | None]:
    """The generation type each message records (``gen_type`` or ``extra.gen_type``), when
    the file lines up message for message with what was read; else nothing."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return []
    objs: list[JSONValue] = []
    try:
        data = json.loads(text)
        if isinstance(data, list):
            objs = data
    except RecursionError:
        return []
    except ValueError:
        for line in text.split("\n")[1:]:
            try:
                objs.append(json.loads(line))
            except (ValueError, RecursionError):
                continue
        objs = [o for o in objs if isinstance(o, dict)]
    if len(objs) != count:
        return []
    return [_gen_type(o) for o in objs]


def _gen_type(obj: JSONValue) -> str | None:
    if not isinstance(obj, dict):
        return None
    extra = obj.get("extra")
    value = obj.get("gen_type", extra.get("gen_type") if isinstance(extra, dict) else None)
    return value if isinstance(value, str) else None


class ProgressBar:
    """A one-line progress bar on stderr, redrawn at most every 1% of the turns."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._shown = -1

    def __call__(self, done: int, total: int) -> None:
        pct = done * 100 // total if total else 100
        if pct == self._shown and done != total:
            return
        self._shown = pct
        bar = "#" * (pct // 4)
        end = "\n" if done == total else ""
        sys.stderr.write(f"\r{self.label} [{bar:<25}] {done}/{total} turns{end}")
        sys.stderr.flush()


def _title(args: argparse.Namespace) -> str:
    books: Sequence[str] = args.books
    return "worldinfo replay: " + ", ".join(Path(b).name for b in books)
