"""The ``worldinfo`` command line: the only place that prints or picks exit codes.

Each sub-command lives in its own module here with a ``register(subparsers)`` function that
adds its parser and sets ``func`` (``func(args) -> int``). Exit codes: 0 ok, 1 problems
found, 2 usage.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from worldinfo import __version__

_COMMANDS = ("scan", "golden", "demo", "importing", "memory", "explain", "lint", "authortest")


def build_parser() -> argparse.ArgumentParser:
    """Return the top-level parser with every available sub-command registered."""
    parser = argparse.ArgumentParser(
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
