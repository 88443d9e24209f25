"""Conventions every sub-command follows (README, "CLI conventions").

* ``-`` as a file argument means stdin (inputs) or stdout (outputs); stdin can be used once.
* Output files are written by ``write_output`` (``importers.writing.write_atomic``).
* Reporting commands take ``--json`` and print one JSON document (``print_json``).
* Every option's help shows its default (``Parser`` adds it where the text does not).
* ``UsageError`` is a request that cannot be honoured: ``main`` prints it and exits 2.
* A file that cannot be read is ``PATH: cannot read: REASON`` (``cannot_read``), whatever
  the command.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable

TYPE_CHECKING = False  # as typing.TYPE_CHECKING: --help imports neither typing nor json
if TYPE_CHECKING:
    from typing import Any

    from worldinfo._js import JSONValue

STDIO = "-"
STDIN_NAME = "<stdin>"


class UsageError(Exception):
    """The command line asks for something that cannot be honoured (exit status 2)."""


def _with_default(action: argparse.Action) -> str | None:
    help_text = action.help
    if not action.option_strings or help_text == argparse.SUPPRESS:
        return help_text
    if isinstance(action, argparse._HelpAction | argparse._VersionAction):
        return help_text
    text = help_text or ""
    if "default" in text.lower() or "required" in text.lower():
        return text
    if isinstance(action, argparse._StoreFalseAction) and action.option_strings[0].startswith(
        "--no-"
    ):
        return text or f"turn off --{action.option_strings[0][5:]}"
    if action.required:
        shown = "required"
    elif isinstance(action, argparse._StoreTrueAction):
        shown = "default: off"
    elif action.default is None or action.default == []:
        shown = "default: not set"
    else:
        shown = f"default: {action.default}"
    shown = shown.replace("%", "%%")
    return f"{text} ({shown})" if text else f"({shown})"


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose every option's help ends with its default."""

    _adding = False

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """As ``ArgumentParser.add_argument``; then the default joins the help text."""
        self._adding = True
        try:
            action = super().add_argument(*args, **kwargs)
        finally:
            self._adding = False
        action.help = _with_default(action)
        return action

    def add_subparsers(self, **kwargs: Any) -> Any:
        """As ``ArgumentParser.add_subparsers``; its usage prefix (the prog of each
        sub-command) holds no positional yet, so no width changes it either."""
        self._adding = True
        try:
            return super().add_subparsers(**kwargs)
        finally:
            self._adding = False

    def _get_formatter(self) -> argparse.HelpFormatter:
        """``add_argument`` makes a formatter only to check the metavar (``_format_args``,
        which no width changes): that one gets a fixed width instead of the terminal's, read
        by ``shutil`` (whose import is ``bz2`` and ``lzma``: start-up time)."""
        if self._adding:
            return self.formatter_class(prog=self.prog, width=80)  # type: ignore[call-arg]
        return super()._get_formatter()


def check_stdin_once(paths: Iterable[str | None]) -> None:
    """Refuse ``-`` (stdin) given for more than one input.

    Raises:
        UsageError: when two inputs both say ``-``.
    """
    if sum(1 for p in paths if p == STDIO) > 1:
        raise UsageError("'-' (stdin) can be given for one input only")


def cannot_read(path: str, exc: OSError) -> str:
    """``PATH: cannot read: REASON``: what every command says of a file it cannot read.

    Args:
        path: the file as the command line gave it.
        exc: the error opening or reading it (its ``strerror``: "No such file or directory").
    """
    return f"{path}: {read_failure(exc)}"


def read_failure(exc: OSError) -> str:
    """``cannot read: REASON``: ``cannot_read`` without the path (for a record that has it)."""
    return f"cannot read: {exc.strerror or exc}"


def read_input(path: str, *, limit: int | None = None) -> bytes:
    """The bytes of ``path``, or of stdin for ``-`` (bounded like any imported file).

    Args:
        path: a file, or ``-``.
        limit: the most bytes accepted (default: the importers' ``max_file_bytes``).

    Raises:
        OSError: the file cannot be read.
        UsageError: the input holds more than ``limit`` bytes.
    """
    if limit is None:
        from worldinfo.importers.limits import DEFAULT_LIMITS

        limit = DEFAULT_LIMITS.max_file_bytes
    if path == STDIO:
        data = sys.stdin.buffer.read(limit + 1)
    else:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    if len(data) > limit:
        raise UsageError(f"{path}: larger than {limit} bytes; refused")
    return data


def input_source(path: str) -> tuple[str | bytes, str | None]:
    """``(source, name)`` for ``importers.load``: the path, or stdin's bytes for ``-``.

    Raises:
        OSError: the file cannot be opened (``cannot_read`` words it), checked here so that
            a missing file is not reported as a file of the format its name suggests.
    """
    if path == STDIO:
        return read_input(path), STDIN_NAME
    check_readable(path)
    return path, None


def check_readable(path: str) -> None:
    """Open ``path`` for reading and close it.

    Raises:
        OSError: it cannot be opened (missing, a folder, no permission); ``cannot_read``
            words it.
    """
    with open(path, "rb"):
        pass


def write_output(path: str | None, data: bytes) -> None:
    """Write ``data`` to ``path`` (``write_atomic``), or to stdout when ``path`` is ``-``/None."""
    if path is None or path == STDIO:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    from worldinfo.importers.writing import write_atomic

    write_atomic(path, data)


def print_json(value: JSONValue) -> None:
    """Print one JSON document (what ``--json`` prints) with a final newline."""
    import json

    print(json.dumps(value, ensure_ascii=False, indent=1))


def add_json_flag(p: argparse.ArgumentParser, what: str) -> None:
    """Add ``--json`` (print ``what`` as one JSON document instead of text)."""
    p.add_argument("--json", action="store_true", help=f"print {what} as one JSON document")
