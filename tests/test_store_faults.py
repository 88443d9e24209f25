"""Full disks, read-only mounts, missing stores and --rebuild, with real processes and files."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from worldinfo.cli import main
from worldinfo.sources.store_sqlite import SqliteStore

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
QUERY = ["memory", "query", "--exclusion", "0", "--json", "who asked 7 about w7"]


def _chat(path: Path, name: str, n: int) -> Path:
    lines: list[dict[str, object]] = [{"user_name": "You", "character_name": "C"}]
    for i in range(n):
        lines.append({"name": "You", "is_user": True, "mes": f"{name} asked {i} about w{i}"})
        lines.append({"name": "C", "is_user": False, "mes": f"answer {i} {name}{i} " * 4})
    path.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    return path


def _store(tmp_path: Path, n: int = 300) -> Path:
    db = tmp_path / "m.db"
    assert (
        main(["memory", "ingest", str(_chat(tmp_path / "old.jsonl", "old", n)), "--db", str(db)])
        == 0
    )
    return db


def _refs(db: Path) -> list[str]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return [r[0] for r in con.execute("SELECT source_ref FROM records ORDER BY id")]
    finally:
        con.close()


def _cli(*argv: str, fsize: int | None = None) -> subprocess.CompletedProcess[str]:
    def limit() -> None:  # runs in the child: a write past the limit gets EFBIG, no signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        assert fsize is not None
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(
        [sys.executable, "-m", "worldinfo", *argv],
        check=False,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
        preexec_fn=None if fsize is None else limit,
    )


def _one_error_line(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("worldinfo memory: ") and proc.stderr.count("\n") == 1, (
        proc.stderr
    )
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in proc.stderr


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs RLIMIT_FSIZE and SIGXFSZ")
def test_file_size_limit_one_line_store_intact_queries_still_work(tmp_path: Path) -> None:
    db = _store(tmp_path)
    before = _refs(db)
    want = _cli(*QUERY, "--db", str(db))
    assert want.returncode == 0
    big = _chat(tmp_path / "big.jsonl", "big", 3000)
    limit = db.stat().st_size
    got = _cli("memory", "ingest", str(big), "--db", str(db), fsize=limit)
    _one_error_line(got, "could not store exchange", "the store is intact")
    after = _refs(db)
    assert after[: len(before)] == before and len(after) < len(before) + 3000
    assert all(ref.startswith("big#") for ref in after[len(before) :])
    rebuilt = _cli("memory", "ingest", str(big), "--db", str(db), "--rebuild", fsize=limit)
    _one_error_line(rebuilt, "not replaced")
    assert _refs(db) == after
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    query = _cli(*QUERY, "--db", str(db), fsize=limit)
    assert query.returncode == 0, query.stderr
    assert json.loads(query.stdout)["pick"] == json.loads(want.stdout)["pick"]


MOUNTED = textwrap.dedent(
    """
    import json, subprocess, sys
    mnt, db, chat, step = sys.argv[1:5]
    def run(*cmd):
        p = subprocess.run([sys.executable, "-m", "worldinfo", *cmd], capture_output=True, text=True)
        return {"rc": p.returncode, "out": p.stdout, "err": p.stderr}
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt], check=True)
    subprocess.run(["cp", db, mnt], check=True)
    store = f"{mnt}/m.db"
    if step == "full":
        import os
        fd = os.open(f"{mnt}/fill", os.O_WRONLY | os.O_CREAT)
        try:  # fill the disk to the last block
            while os.write(fd, b"x" * 4096):
                pass
        except OSError:
            pass
        os.close(fd)
    else:
        subprocess.run(["mount", "-o", "remount,ro", mnt], check=True)
    q = ["memory", "query", "--exclusion", "0", "--json", "who asked 7 about w7", "--db", store]
    out = {
        "query": run(*q),
        "ingest": run("memory", "ingest", chat, "--db", store),
        "rebuild": run("memory", "ingest", chat, "--db", store, "--rebuild"),
        "new": run("memory", "ingest", chat, "--db", f"{mnt}/new.db"),
    }
    out["query_after"] = run(*q)
    con = __import__("sqlite3").connect(f"file:{store}?mode=ro&immutable=1", uri=True)
    out["refs"] = [r[0] for r in con.execute("SELECT source_ref FROM records ORDER BY id")]
    out["check"] = con.execute("PRAGMA integrity_check").fetchone()[0]
    print(json.dumps(out))
    """
)


def _can_mount(tmp_path: Path) -> str | None:
    """Why a private tmpfs cannot be mounted here (``None`` if it can)."""
    if shutil.which("unshare") is None or not sys.platform.startswith("linux"):
        return "needs Linux unshare(1)"
    probe = tmp_path / "probe"
    probe.mkdir()
    cmd = ["unshare", "-m", "mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(probe)]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=30)
    return None if done.returncode == 0 else f"cannot mount a tmpfs: {done.stderr.strip()}"


@pytest.mark.parametrize("step", ["full", "readonly"])
def test_tmpfs_full_or_read_only(tmp_path: Path, step: str) -> None:
    reason = _can_mount(tmp_path)
    if reason:
        pytest.skip(reason)
    db = _store(tmp_path)
    want = _cli(*QUERY, "--db", str(db))
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    chat = _chat(tmp_path / "new.jsonl", "new", 4000)
    done = subprocess.run(
        ["unshare", "-m", sys.executable, "-c", MOUNTED, str(mnt), str(db), str(chat), step],
        check=False,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    word = "disk full" if step == "full" else "read-only"
    for name in ("ingest", "rebuild", "new"):
        run = out[name]
        assert run["rc"] == 1 and run["err"].count("\n") == 1, (name, run["err"])
        assert run["err"].startswith("worldinfo memory: ") and "Traceback" not in run["err"]
        assert word in run["err"] or "Read-only" in run["err"], (name, run["err"])
    for name in ("query", "query_after"):
        assert out[name]["rc"] == 0, out[name]["err"]
        assert json.loads(out[name]["out"])["pick"] == json.loads(want.stdout)["pick"]
    assert out["check"] == "ok" and out["refs"][:300] == _refs(db)


def test_query_never_creates_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing, empty = tmp_path / "none.db", tmp_path / "empty.db"
    empty.write_bytes(b"")
    assert main([*QUERY, "--db", str(missing)]) == 1
    assert "no such store" in capsys.readouterr().err
    assert main([*QUERY, "--db", str(empty)]) == 1
    err = capsys.readouterr().err
    assert "empty file" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]
    assert empty.stat().st_size == 0


def test_rebuild_swaps_in_the_new_store_with_the_old_one_in_place_until_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _store(tmp_path, 20)
    old = _refs(db)
    seen: list[tuple[list[str], str]] = []
    real = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        seen.append((_refs(Path(dst)), str(Path(src).parent)))  # the old store, still whole
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    new = _chat(tmp_path / "new.jsonl", "new", 5)
    assert main(["memory", "ingest", str(new), "--db", str(db), "--rebuild"]) == 0
    assert seen == [(old, str(tmp_path))]
    assert _refs(db)[0].startswith("new#0:") and len(_refs(db)) == 5
    names = sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm")))
    assert names == ["m.db", "new.jsonl", "old.jsonl"]
    capsys.readouterr()


def test_a_failed_rebuild_leaves_the_old_store_and_no_temp_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = _store(tmp_path, 20)
    old = _refs(db)
    bad = tmp_path / "z-bad.jsonl"
    bad.write_text("{not json", encoding="utf-8")
    new = _chat(tmp_path / "new.jsonl", "new", 5)
    assert main(["memory", "ingest", str(new), str(bad), "--db", str(db), "--rebuild"]) == 1
    assert capsys.readouterr().err.count("\n") == 1
    assert _refs(db) == old
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    with SqliteStore(db) as store:  # still a writable store in WAL mode
        assert store.ingest("more", "text", source_ref="more#0") is not None


def test_a_query_writes_nothing_not_even_a_checkpoint(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    script = textwrap.dedent(
        """
        import os, sys
        from worldinfo.sources.store_sqlite import SqliteStore
        store = SqliteStore(sys.argv[1])
        for i in range(300):
            store.ingest(f"k asked {i} about w{i}", f"answer {i} k{i} " * 4, source_ref=f"k#{i}")
        os._exit(0)  # no close: the exchanges stay in the WAL
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(db)], check=False, env=ENV, timeout=120
    )
    assert done.returncode == 0
    wal = Path(f"{db}-wal")
    before = (db.read_bytes(), wal.read_bytes())
    assert len(before[1]) > 32  # frames that a checkpoint would move into the file
    got = _cli(*QUERY, "--db", str(db))
    assert got.returncode == 0, got.stderr
    assert "about w7" in json.loads(got.stdout)["block"]
    assert (db.read_bytes(), wal.read_bytes()) == before
