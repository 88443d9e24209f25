"""Writing an output file atomically (private to the commands that write reports).

The text goes to a temporary file beside the target, is flushed to disk, then renamed over
it: a reader sees the old file or the new one, never half of one. A target that exists and
is not a regular file (a directory, a device, a FIFO) is refused, so ``--html /dev/sda`` or
``--html some/dir`` cannot do damage.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class OutputError(Exception):
    """The output file cannot be written (the message names it and says why)."""


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically.

    Args:
        path: the file to create or replace.
        text: its new content.

    Raises:
        OutputError: ``path`` exists and is not a regular file, or writing failed.
    """
    target = Path(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputError(f"{target}: {exc.strerror or exc}") from exc
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputError(f"{target}: exists and is not a regular file; not replacing it")
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputError(f"{target}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, stat.S_IMODE(mode))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"{target}: {exc.strerror or exc}") from exc
