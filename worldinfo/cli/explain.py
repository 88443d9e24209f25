"""``worldinfo explain BOOK... --chat CHAT``: why each entry did or did not activate.

Runs one traced scan and prints, per scan loop, a table of the entries the loop looked at
(outcome, reason, detail: the key and where it was found, the roll, the token counts), then
the final verdict per entry. ``--json`` prints the trace itself.
"""

from __future__ import annotations

import argparse
import json
import sys

from worldinfo.cli._commands import help_of
from worldinfo.cli._conventions import add_json_flag
from worldinfo.cli._inputs import InputError, open_session, where_scan_stopped
from worldinfo.cli._scan_options import add_scan_options
from worldinfo.explain import render_trace, trace_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``explain`` sub-command."""
    p = sub.add_parser(
        "explain",
        help=help_of("explain"),
        description="Scan books/cards (any importable format) against a chat and show, per "
        "scan loop, every entry's outcome and reason, then the final verdicts.",
    )
    p.add_argument("books", nargs="+", metavar="BOOK_OR_CARD")
    add_scan_options(p)
    add_json_flag(p, "the trace (loops of events, verdicts, activated entries)")
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="deprecated: --format json is --json",
    )
    p.add_argument(
        "--html",
        metavar="FILE",
        help="also write the scan as an HTML report (-: the HTML goes to stdout, the rest to stderr)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run a traced scan and print the explanation."""
    try:
        session = open_session(args)
    except InputError as exc:
        print(f"worldinfo explain: {exc}", file=sys.stderr)
        return 1
    result = session.generate(args.type, trace=True)
    if args.html:
        from worldinfo.cli._replay_html import write_scan_report

        error = write_scan_report(args.html, session, result, type=args.type, books=args.books)
        if error:
            print(f"worldinfo explain: {error}", file=sys.stderr)
            return 1
    stops = where_scan_stopped(session.books, result.error) if result.error else []
    report = sys.stderr if args.html == "-" else sys.stdout
    if args.json or args.format == "json":
        out = trace_json(result)
        if result.error:
            out["error_at"] = list(stops)
        print(json.dumps(out, ensure_ascii=False, indent=1), file=report)
    else:
        text = render_trace(result, books=session.books, count_tokens=session.count_tokens)
        print(text, end="", file=report)
    for line in stops:
        print(f"worldinfo explain: {line}", file=sys.stderr)
    return 1 if result.error else 0
