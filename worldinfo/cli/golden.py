"""``worldinfo golden PATH...``: run golden case files of every known format."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from worldinfo._js import JSONValue, parse_json
from worldinfo.cli._commands import help_of
from worldinfo.cli._conventions import (
    STDIO,
    UsageError,
    add_json_flag,
    cannot_read,
    check_stdin_once,
    print_json,
    read_input,
)
from worldinfo.conformance import Outcome, run_paths


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``golden`` sub-command."""
    p = sub.add_parser(
        "golden",
        help=help_of("golden"),
        description='Run golden case files of any format (each file\'s "format" picks the '
        "runner); print one line per failing case and a summary. Exit 0 only when nothing "
        "failed.",
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="case files or folders; - reads one from stdin"
    )
    p.add_argument("-v", "--verbose", action="store_true", help="also list passing cases")
    add_json_flag(p, "every case (case_id, ok, skipped, detail) and the totals")
    p.set_defaults(func=run)


def _outcomes(paths: list[str]) -> Iterator[Outcome]:
    from worldinfo.conformance.base import runners

    for p in paths:
        if p != STDIO:
            yield from run_paths([p])
            continue
        data = parse_json(read_input(STDIO))
        fmt = data.get("format") if isinstance(data, dict) else None
        runner = runners().get(fmt) if isinstance(fmt, str) else None
        if runner is None:
            raise UsageError(f"-: not a golden case file of a known format ({fmt!r})")
        yield from runner(data, Path("stdin.json"))


def _unstattable(path: str) -> OSError | None:
    """Why ``path`` (a case file or a folder of them) cannot be read, or None."""
    try:
        Path(path).stat()
    except OSError as exc:
        return exc
    return None


def run(args: argparse.Namespace) -> int:
    """Run the cases; print one line per failure and the summary line."""
    check_stdin_once(args.paths)
    missing = [(p, exc) for p in args.paths if p != STDIO and (exc := _unstattable(p))]
    if missing:
        for p, exc in missing:
            print(f"worldinfo golden: {cannot_read(p, exc)}", file=sys.stderr)
        return 1
    passed = failed = skipped = 0
    records: list[JSONValue] = []
    for outcome in _outcomes(args.paths):
        if args.json:
            records.append(
                {
                    "case_id": outcome.case_id,
                    "ok": outcome.ok,
                    "skipped": outcome.skipped or None,
                    "detail": outcome.detail or None,
                }
            )
        if outcome.skipped:
            skipped += 1
            if args.verbose and not args.json:
                print(f"skip {outcome.case_id}: {outcome.skipped}")
        elif outcome.ok:
            passed += 1
            if args.verbose and not args.json:
                print(f"ok   {outcome.case_id}")
        else:
            failed += 1
            if not args.json:
                print(f"FAIL {outcome.case_id}: {outcome.detail}")
        sys.stdout.flush()
    if args.json:
        print_json({"cases": records, "passed": passed, "failed": failed, "skipped": skipped})
        return 0 if failed == 0 else 1
    tail = f", {skipped} skipped (input not in this checkout; -v names them)" if skipped else ""
    print(f"{passed} passed, {failed} failed{tail}")
    return 0 if failed == 0 else 1
