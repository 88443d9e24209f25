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
from collections.abc import Collection, Sequence

from worldinfo import __version__
from worldinfo.cli._commands import COMMANDS
from worldinfo.cli._conventions import Parser, UsageError


def build_parser(
    *, full: Collection[str] | None = None, listed: bool = True
) -> argparse.ArgumentParser:
    """Return the top-level parser with every available sub-command registered.

    Args:
        full: the commands to register in full (default: all); every other one is listed
            by name and help line only, so its module is not imported (``main`` passes the
            one command it runs: start-up time). The top-level help, usage and errors are
            the same either way.
        listed: list the other commands at all. Without them the top-level help would lack
            their lines, but an ``argv`` that starts with a command never shows that help:
            its usage and errors read the same (``main``: start-up time).
    """
    parser = Parser(
        prog="worldinfo",
        description="SillyTavern World Info, faithfully in Python.",
    )
    parser.add_argument("--version", action="version", version=f"worldinfo {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = None if full is None else {COMMANDS[name][0] for name in full}
    registered: set[str] = set()
    for name, (module, help_line) in COMMANDS.items():
        if wanted is not None and module not in wanted:
            if listed:
                sub.add_parser(name, help=help_line)
            continue
        if module in registered:
            continue
        try:
            mod = importlib.import_module(f"worldinfo.cli.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"worldinfo.cli.{module}":
                raise
            continue
        mod.register(sub)
        registered.add(module)
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The sub-command ``argv`` names (its first word that is not an option), if known.

    The top-level parser's only options (``-h``, ``--version``) take no value, so the first
    other word is the command."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in COMMANDS else None


def _terminated(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds like Ctrl-C: temporary files are removed


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = _command_in(argv)
    first = command is not None and argv[0] == command  # no top-level option before it
    parser = build_parser(full=() if command is None else (command,), listed=not first)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:  # only the main thread may set a handler (signal says so: no threading import)
        previous = signal.signal(signal.SIGTERM, _terminated)
        in_main = True
    except ValueError:
        previous, in_main = None, False
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
