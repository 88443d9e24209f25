"""``write_atomic``: the one way this project writes an output file.

Readers never see a half-written file: the data goes to a temporary file in the target's
folder, which then replaces the target in one rename. The result looks like any other file
the user makes: a new file gets ``0o666`` less the umask, an existing one keeps its mode (and
its owner and group where the process may set them). A symlink is followed: the file it
points to is replaced, the link stays. A FIFO or a character device (``/dev/stdout``,
``/dev/null``) is written through, never replaced; any other non-regular file (a directory,
a socket, a block device) is refused. On any failure or interruption (``KeyboardInterrupt``,
``SystemExit`` from a signal handler) the temporary file is removed.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


class OutputRefused(OSError):
    """The output path names something that must not be replaced (a directory, a socket ...)."""


def current_umask() -> int:
    """The process umask, read without changing it where the system allows (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: read it by setting it, then put it back
    os.umask(mask)
    return mask


def writes_through(mode: int) -> bool:
    """Whether a file of ``mode`` is written through (a FIFO or a character device)."""
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def write_atomic(out: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``out``: atomically for files, through for FIFOs and devices.

    Args:
        out: the output path (a symlink's target is what gets replaced).
        data: the complete contents.

    Raises:
        OutputRefused: ``out`` is a directory, a socket or a block device.
        OSError: the file cannot be written (nothing is left behind).
    """
    target = Path(os.path.realpath(out))
    try:
        st: os.stat_result | None = target.stat()
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        if writes_through(st.st_mode):
            with open(target, "wb") as fh:
                fh.write(data)
            return
        raise OutputRefused(f"{out}: is {_kind(st.st_mode)}; refusing to replace it")
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~current_umask()
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            if st is not None and (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
                # not ours to give away: the new file is the writer's
                with contextlib.suppress(PermissionError):
                    os.fchown(fh.fileno(), st.st_uid, st.st_gid)
            os.fsync(fh.fileno())
        os.replace(tmp, target)
        tmp = None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
