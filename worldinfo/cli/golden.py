"""``worldinfo golden PATH...``: run golden case files of every known format."""

from __future__ import annotations

import argparse
import sys

from worldinfo.conformance import run_paths


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``golden`` sub-command."""
    p = sub.add_parser("golden", help="run golden case files (files or folders)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("-v", "--verbose", action="store_true", help="also list passing cases")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the cases; print one line per failure and the summary line."""
    passed = failed = skipped = 0
    for outcome in run_paths(args.paths):
        if outcome.skipped:
            skipped += 1
            if args.verbose:
                print(f"skip {outcome.case_id}: {outcome.skipped}")
        elif outcome.ok:
            passed += 1
            if args.verbose:
                print(f"ok   {outcome.case_id}")
        else:
            failed += 1
            print(f"FAIL {outcome.case_id}: {outcome.detail}")
        sys.stdout.flush()
    tail = f", {skipped} skipped (input not in this checkout; -v names them)" if skipped else ""
    print(f"{passed} passed, {failed} failed{tail}")
    return 0 if failed == 0 else 1
