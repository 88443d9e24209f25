"""``worldinfo memory ingest|query|salvage``: the chat-history retriever's store from the CLI.

The sub-commands run in ``_memory_store`` (ingest, salvage) and ``_memory_query`` (query).
Store work fails with one ``worldinfo memory:`` line and exit 1 (disk full, read-only, busy, damaged,
missing): ``StoreError`` says which, and any ``sqlite3.Error`` or ``OSError`` that escapes it is
printed the same way, never as a traceback.
"""

from __future__ import annotations

import argparse

from worldinfo.cli._commands import help_of
from worldinfo.cli._memory_query import run_query
from worldinfo.cli._memory_store import run_ingest, run_salvage
from worldinfo.sources.retriever_settings import RANKINGS, RetrieverSettings
from worldinfo.sources.store_sqlite import BUSY_TIMEOUT_S

PUNCTUATION_HELP = "tokeniser: strip ASCII punctuation only, or all Unicode punctuation"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``memory`` sub-command and its ``ingest``, ``query`` and ``salvage`` actions."""
    p = sub.add_parser("memory", help=help_of("memory"))
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


__all__ = ["register"]
