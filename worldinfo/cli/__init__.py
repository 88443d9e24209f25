"""The ``worldinfo`` command line: the only place that prints or picks exit codes.

Each sub-command lives in its own module here with a ``register(subparsers)`` function that
adds its parser and sets ``func`` (``func(args) -> int``). Exit codes: 0 ok, 1 problems
found, 2 usage.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading
from collections.abc import Sequence

from worldinfo import __version__
from worldinfo.cli._conventions import Parser, UsageError

_COMMANDS = (
    "scan",
    "golden",
    "demo",
    "importing",
    "memory",
    "explain",
    "lint",
    "authortest",
    "replay",
    "macros",
    "serve",
)


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every available sub-command registered."""
    parser = Parser(
        prog="worldinfo",
        description="SillyTavern World Info, faithfully in Python.",
    )
    parser.add_argument("--version", action="version", version=f"worldinfo {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMANDS:
        try:
            mod = importlib.import_module(f"worldinfo.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"worldinfo.cli.{name}":
                raise
            continue
        mod.register(sub)
    return parser


def _terminated(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds like Ctrl-C: temporary files are removed


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if in_main else None
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"worldinfo {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
