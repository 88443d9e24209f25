"""A process killed (SIGKILL) while ingesting leaves a sound store holding every acked exchange."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from worldinfo.sources.store_sqlite import SqliteStore

WRITER = textwrap.dedent(
    """
    import sys
    from worldinfo.sources.store_sqlite import SqliteStore
    store = SqliteStore(sys.argv[1])
    i = 0
    while True:
        ref = f"crash#{i}"
        words = " ".join(f"w{(i * 7 + k) % 997}" for k in range(40))
        if store.ingest(f"user {i} {words}", f"reply {i} {words} {words}", source_ref=ref):
            sys.stdout.write(f"ack {ref}\\n")
            sys.stdout.flush()
        i += 1
    """
)


@pytest.mark.skipif(os.name != "posix", reason="needs SIGKILL")
@pytest.mark.parametrize("kill_after", [1, 37, 400])
def test_sigkill_during_ingest_loses_nothing_acknowledged(tmp_path: Path, kill_after: int) -> None:
    db = tmp_path / "crash.db"
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    acked: list[str] = []
    for line in proc.stdout:
        acked.append(line.split()[1])
        if len(acked) >= kill_after:
            proc.send_signal(signal.SIGKILL)
            break
    acked.extend(line.split()[1] for line in proc.stdout if line.startswith("ack "))
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    con.close()
    with SqliteStore(db) as store:
        missing = [ref for ref in acked if store.get(ref) is None]
        assert not missing
        assert len(store) >= len(acked)
        assert store.ingest("after", "the crash", source_ref="after#0") is not None
