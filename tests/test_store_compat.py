"""A store written by an earlier version opens, answers and takes writes (schema v1 -> v2)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from worldinfo.sources.store_sqlite import USER_VERSION, SqliteStore

V1 = Path(__file__).resolve().parent / "data" / "memory-store" / "v1.db"


def test_a_v1_store_opens_and_takes_writes(tmp_path: Path) -> None:
    db = tmp_path / "v1.db"
    shutil.copyfile(V1, db)
    with SqliteStore(db, readonly=True) as store:  # read-only: read as v1, not migrated
        assert [r.source_ref for r in store.records()] == [f"chat#{i}" for i in (0, 1, 2, 4, 5)]
        assert all(r.timestamp is None for r in store.records())
        assert store.get("chat#4") is not None
        words = store.index.words
        rec = store.get("chat#4")
        assert rec is not None and [words[t] for t in rec.user_tokens] == store.tokens(rec.user)
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA user_version").fetchone() == (1,)
    con.close()
    with SqliteStore(db) as store:  # a writer migrates it (v2: timestamps)
        assert store.ingest("user 6 asks again", "reply 6", source_ref="chat#6") is not None
        assert store.delete("chat#0")
    with SqliteStore(db, readonly=True) as store:
        assert [r.source_ref for r in store.records()][-1] == "chat#6" and len(store) == 5
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA user_version").fetchone() == (USER_VERSION,) == (2,)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    con.close()
