"""Writing a text report (``--html``) the way every command writes an output file.

A thin wrapper over ``importers.writing.write_atomic`` (README, "CLI conventions"): a
regular file is replaced atomically and keeps its mode, a FIFO or a character device such
as ``/dev/stdout`` is written through, and a directory, a socket or a block device is
refused. ``-`` is standard output. Failures become one ``OutputError`` that names the file.
"""

from __future__ import annotations

import sys
from pathlib import Path

from worldinfo.importers.writing import write_atomic

STDOUT = "-"


class OutputError(Exception):
    """The output file cannot be written (the message names it and says why)."""


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` as ``write_atomic`` does.

    Args:
        path: the file to create or replace; ``-``: standard output.
        text: its new content.

    Raises:
        OutputError: ``path`` is a directory, a socket or a block device, or writing failed.
    """
    if str(path) == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        write_atomic(path, text.encode("utf-8"))
    except OSError as exc:
        if exc.strerror:
            raise OutputError(f"{path}: {exc.strerror}") from exc
        raise OutputError(str(exc)) from exc
