"""Several real processes on one SQLite memory store: writers, readers, a held lock."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from worldinfo.cli import main
from worldinfo.sources.store_errors import StoreBusyError
from worldinfo.sources.store_sqlite import SqliteStore

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

WRITER = textwrap.dedent(
    """
    import sys, time
    from worldinfo.sources.store_sqlite import SqliteStore
    db, name, n, pause = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    store = SqliteStore(db)
    sys.stdin.readline()  # start together
    stored = 0
    for i in range(n):
        # shared words, words only this writer uses, and words both invent at the same time
        text = f"shared{i % 13} {name}{i} fresh{i} common{i % 101}"
        if store.ingest(f"user {text}", f"reply {name} {i}", source_ref=f"{name}#{i}"):
            stored += 1
        time.sleep(pause)
        if i % 50 == 0:
            sys.stdout.write(f"at {i}\\n")
            sys.stdout.flush()
    store.close()
    sys.stdout.write(f"stored {stored}\\n")
    """
)

HOLDER = textwrap.dedent(
    """
    import sqlite3, sys, time
    con = sqlite3.connect(sys.argv[1], isolation_level=None)
    con.execute("BEGIN IMMEDIATE")
    sys.stdout.write("locked\\n")
    sys.stdout.flush()
    if sys.argv[2] == "wait":
        sys.stdin.readline()
    else:
        time.sleep(float(sys.argv[2]))
    con.execute("COMMIT")
    """
)


def _writer(db: Path, name: str, n: int, *, pause: float = 0.0) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), name, str(n), str(pause)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )


def _assert_sound(store: SqliteStore) -> None:
    """Every record's token ids spell its own text: no id was given to two words."""
    words = store.index.words
    for rec in store.records():
        assert [words[t] for t in rec.user_tokens] == store.tokens(rec.user), rec.source_ref
        assert [words[t] for t in rec.reply_tokens] == store.tokens(rec.reply), rec.source_ref
    assert store.index.total == sum(
        len(r.user_tokens) + len(r.reply_tokens) for r in store.records()
    )


def test_two_writers_store_every_exchange(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    SqliteStore(db).close()
    procs = [_writer(db, name, 1000) for name in ("alpha", "beta")]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    outs = [proc.communicate(timeout=300) for proc in procs]
    for proc, (out, err) in zip(procs, outs, strict=True):
        assert proc.returncode == 0, err
        assert out.splitlines()[-1] == "stored 1000"
    with SqliteStore(db) as store:
        assert len(store) == 2000
        for name in ("alpha", "beta"):
            assert all(store.get(f"{name}#{i}") is not None for i in range(1000))
        _assert_sound(store)
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    con.close()


def _chat(path: Path, name: str, n: int) -> None:
    lines: list[dict[str, object]] = [{"user_name": "You", "character_name": "C"}]
    for i in range(n):
        lines.append({"name": "You", "is_user": True, "mes": f"{name} asks {i} w{i % 37}"})
        lines.append({"name": "C", "is_user": False, "mes": f"answer {i} {name}{i}"})
    path.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")


def test_two_cli_ingests_on_one_db_both_succeed(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    for name in ("a", "b"):
        _chat(tmp_path / f"{name}.jsonl", name, 1000)
    cmd = [sys.executable, "-m", "worldinfo", "memory", "ingest", "--db", str(db)]
    procs = [
        subprocess.Popen(
            [*cmd, str(tmp_path / f"{name}.jsonl")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        for name in ("a", "b")
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert all(line.startswith("  ") for line in err.splitlines()), err  # progress only
        assert "1000 exchanges, 1000 ingested" in out
    with SqliteStore(db, readonly=True) as store:
        assert len(store) == 2000
        _assert_sound(store)


def test_readers_during_ingest_see_one_snapshot(tmp_path: Path) -> None:
    db = tmp_path / "busy.db"
    SqliteStore(db).close()
    proc = _writer(db, "w", 100_000, pause=0.002)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("go\n")
    proc.stdin.flush()
    proc.stdout.readline()
    live = SqliteStore(db, readonly=True)
    sizes: list[int] = []
    try:
        for _ in range(30):
            with SqliteStore(db, readonly=True) as store:  # a fresh open: load in one snapshot
                _assert_sound(store)
                sizes.append(len(store))
            live.refresh()  # a long-lived reader catching up
            _assert_sound(live)
            assert len(live) >= sizes[-1]
    finally:
        live.close()
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL  # it was still writing throughout
    assert sizes == sorted(sizes) and sizes[-1] > sizes[0]


def _hold(db: Path, how: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db), how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "locked\n"
    return proc


def test_a_busy_store_waits_then_fails_typed_and_unchanged(tmp_path: Path) -> None:
    db = tmp_path / "locked.db"
    with SqliteStore(db) as store:
        store.ingest("before", "the lock", source_ref="x#0")
    holder = _hold(db, "wait")
    try:
        with SqliteStore(db, busy_timeout=0.2) as store:
            with pytest.raises(StoreBusyError, match="store busy"):
                store.ingest("during", "the lock", source_ref="x#1")
            assert store.get("x#1") is None and len(store) == 1
    finally:
        holder.communicate("release\n", timeout=30)
    with SqliteStore(db) as store:
        assert [r.source_ref for r in store.records()] == ["x#0"]


def test_a_busy_store_waits_for_the_lock_to_be_released(tmp_path: Path) -> None:
    db = tmp_path / "locked.db"
    SqliteStore(db).close()
    holder = _hold(db, "0.3")  # lets go by itself while the ingest waits
    with SqliteStore(db) as store:
        assert store.ingest("waited", "for the lock", source_ref="x#0") is not None
    holder.communicate(timeout=30)
    assert holder.returncode == 0
    with SqliteStore(db, readonly=True) as store:
        assert store.get("x#0") is not None


def test_cli_ingest_on_a_locked_store_prints_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, chat = tmp_path / "m.db", tmp_path / "c.jsonl"
    _chat(chat, "c", 3)
    SqliteStore(db).close()
    holder = _hold(db, "wait")
    try:
        code = main(["memory", "ingest", str(chat), "--db", str(db), "--busy-timeout", "0.1"])
    finally:
        holder.communicate("release\n", timeout=30)
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "store busy" in err
    assert "Traceback" not in err


def test_a_store_being_created_by_another_connection_is_waited_for(tmp_path: Path) -> None:
    # A new file is still in rollback mode: while another connection holds its write lock
    # (another process creating the same store), SQLite answers the WAL switch busy at once,
    # without its busy handler; the open waits for the lock like any other.
    db = tmp_path / "new.db"
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.3, other.execute, ("COMMIT",))
    release.start()
    try:
        with SqliteStore(db) as store:
            assert store.ingest("after", "the lock", source_ref="x#0") is not None
    finally:
        release.join()
        other.close()
    with SqliteStore(db, readonly=True) as store:
        assert [r.source_ref for r in store.records()] == ["x#0"]


def test_a_store_being_created_past_the_busy_timeout_fails_typed(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreBusyError, match="store busy"):
            SqliteStore(db, busy_timeout=0.1)
    finally:
        other.execute("COMMIT")
        other.close()
