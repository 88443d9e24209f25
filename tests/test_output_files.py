"""Output files (``importers.writing.write_atomic``, ``import -o``): modes as the user expects,
non-regular files never replaced, nothing left behind on failure, Ctrl-C or SIGTERM."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from worldinfo.cli import main
from worldinfo.examples import path as example
from worldinfo.importers import writing
from worldinfo.importers.writing import OutputRefused, write_atomic

BOOK = str(example("emberfall.json"))
posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file modes and FIFOs")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@posix_only
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_new_file_honours_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        assert writing.current_umask() == umask
        write_atomic(tmp_path / "out.json", b"{}")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "out.json") == 0o666 & ~umask


@posix_only
def test_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(b"old")
    out.chmod(0o640)
    assert main(["import", BOOK, "-o", str(out)]) == 0
    assert _mode(out) == 0o640 and out.read_bytes().startswith(b"{")


@posix_only
def test_symlink_target_is_replaced_and_the_link_kept(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_bytes(b"old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_atomic(link, b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"


@posix_only
def test_fifo_is_written_through_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, b"through the pipe")
    reader.join(timeout=30)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("kind", "through"),
    [
        (stat.S_IFCHR, True),  # /dev/null, /dev/stdout, a terminal: written through
        (stat.S_IFIFO, True),
        (stat.S_IFREG, False),  # replaced atomically
        (stat.S_IFBLK, False),  # refused, like directories and sockets
        (stat.S_IFDIR, False),
        (stat.S_IFSOCK, False),
    ],
)
def test_which_files_are_written_through(kind: int, through: bool) -> None:
    """Device nodes are judged by their mode (no test writes to a real device)."""
    assert writing.writes_through(kind | 0o666) is through


def test_directory_is_refused_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(OutputRefused, match="is a directory; refusing to replace it"):
        write_atomic(folder, b"x")
    assert main(["import", BOOK, "-o", str(folder)]) == 2
    assert "is a directory" in capsys.readouterr().err
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_failed_write_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out.json"
    out.write_bytes(b"old")

    def boom(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", boom)  # the os module writing uses
    with pytest.raises(KeyboardInterrupt):
        write_atomic(out, b"new")
    assert out.read_bytes() == b"old" and _leftovers(tmp_path) == []


@posix_only
def test_sigterm_mid_write_leaves_nothing(tmp_path: Path) -> None:
    """The CLI turns SIGTERM into an unwinding exit: the temporary file is removed."""
    out = tmp_path / "out.json"
    code = (
        "import os, signal, sys\n"
        "from worldinfo.importers import writing\n"
        "real = os.fsync\n"
        "def fsync(fd):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    real(fd)\n"
        "writing.os.fsync = fsync\n"
        "from worldinfo.cli import main\n"
        f"sys.exit(main(['import', {BOOK!r}, '-o', {str(out)!r}]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, timeout=120
    )
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr
    assert not out.exists() and _leftovers(tmp_path) == []


def test_dash_is_stdout(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["import", BOOK, "-o", "-"]) == 0
    assert capsysbinary.readouterr().out.startswith(b"{")
