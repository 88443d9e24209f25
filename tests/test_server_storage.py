"""One storage contract, the same tests against SQLite and a real PostgreSQL server."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from serverkit import BACKENDS, database

from worldinfo.server.backends import open_storage
from worldinfo.server.sql import Conflict
from worldinfo.server.storage import (
    BookRow,
    MemoryChanges,
    MemoryRecordRow,
    MemoryRow,
    NotFound,
    SessionRow,
    Storage,
    StorageError,
)


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as u:
        yield u


@pytest.fixture
def store(url: str) -> Iterator[Storage]:
    s = open_storage(url)
    yield s
    s.close()


def _session(sid: str = "se_1", owner: str = "alice") -> SessionRow:
    return SessionRow(
        id=sid, owner=owner, config={"books": []}, chat=[], chat_metadata={"a": 1}, extra={}
    )


def test_books_round_trip_bytes_and_are_scoped_to_their_owner(store: Storage) -> None:
    raw = bytes(range(256)) * 3
    row = BookRow(
        id="bk_1", owner="alice", sha256="h", name="a.png", format="card-v2", trust=False, raw=raw
    )
    store.put_book(row)
    assert store.book("alice", "bk_1") == row
    assert [b.id for b in store.books("alice")] == ["bk_1"]
    assert store.books("bob") == []
    with pytest.raises(NotFound):
        store.book("bob", "bk_1")


def test_a_committed_session_survives_reopening(store: Storage, url: str) -> None:
    store.create_session(_session())
    with store.session_tx("alice", "se_1") as tx:
        tx.save(replace(tx.row, chat=[{"mes": "hi"}], chat_metadata={"timedWorldInfo": {}}))
    store.close()
    again = open_storage(url)
    try:
        row = again.session("alice", "se_1")
        assert (row.chat, row.chat_metadata, row.version) == (
            [{"mes": "hi"}],
            {"timedWorldInfo": {}},
            1,
        )
        with pytest.raises(NotFound):
            again.session("bob", "se_1")
    finally:
        again.close()


def test_an_error_in_a_transaction_writes_nothing(store: Storage) -> None:
    store.create_session(_session())
    store.create_memory(MemoryRow(id="me_1", owner="alice", settings={}))
    with pytest.raises(RuntimeError), store.session_tx("alice", "se_1") as tx:
        tx.memory("me_1")
        rec = MemoryRecordRow(id=1, source_ref="c#1", user="u", reply="r")
        tx.change_memory("me_1", MemoryChanges(added=[rec]))
        tx.save(replace(tx.row, chat=[{"mes": "lost"}]))
        raise RuntimeError("boom")
    assert store.session("alice", "se_1").chat == []
    assert store.memory_records("alice", "me_1") == []
    assert store.memory_head("alice", "me_1").version == 0


def test_a_write_that_fails_at_commit_writes_nothing_and_the_next_turn_works(
    store: Storage,
) -> None:
    store.create_session(_session())
    with pytest.raises(TypeError), store.session_tx("alice", "se_1") as tx:
        tx.save(replace(tx.row, chat=[{"mes": "lost"}], chat_metadata={"x": object()}))
    assert store.session("alice", "se_1").chat == []  # the writes go with the commit
    with store.session_tx("alice", "se_1") as tx:
        tx.save(replace(tx.row, chat=[{"mes": "kept"}]))
    assert store.session("alice", "se_1").chat == [{"mes": "kept"}]


def test_memory_changes_apply_in_order_and_bump_the_version(store: Storage) -> None:
    store.create_memory(MemoryRow(id="me_1", owner="alice", settings={"exclusion": 0}))
    recs = [MemoryRecordRow(id=i, source_ref=f"c#{i}", user=f"u{i}", reply="r") for i in (1, 2)]
    with store.memory_tx("alice", "me_1") as tx:
        tx.change_memory("me_1", MemoryChanges(added=recs))
        tx.change_memory("me_1", MemoryChanges(deleted=["c#1"]))
    assert [r.source_ref for r in store.memory_records("alice", "me_1")] == ["c#2"]
    head = store.memory_head("alice", "me_1")
    assert (head.version, head.settings) == (2, {"exclusion": 0})
    with pytest.raises(NotFound):
        store.memory_records("bob", "me_1")


def test_concurrent_read_modify_writes_lose_no_update(store: Storage) -> None:
    store.create_session(_session())
    n_threads, per_thread = 4, 10

    def work() -> None:
        for _ in range(per_thread):
            while True:
                try:
                    with store.session_tx("alice", "se_1") as tx:
                        count = int(tx.row.chat_metadata.get("n", 0))
                        tx.save(replace(tx.row, chat_metadata={"n": count + 1}))
                    break
                except Conflict:
                    continue

    threads = [threading.Thread(target=work) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    row = store.session("alice", "se_1")
    assert row.chat_metadata == {"n": n_threads * per_thread}
    assert row.version == n_threads * per_thread


def test_deleting_a_session_needs_its_owner(store: Storage) -> None:
    store.create_session(_session())
    with pytest.raises(NotFound):
        store.delete_session("bob", "se_1")
    store.delete_session("alice", "se_1")
    with pytest.raises(NotFound):
        store.session("alice", "se_1")


def test_a_file_that_is_not_a_server_database_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not sqlite at all" * 100)
    with pytest.raises(StorageError, match="bad.db"):
        open_storage(str(bad))


SCHEMA_1 = [
    "CREATE TABLE wi_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    (
        "CREATE TABLE wi_sessions (id TEXT PRIMARY KEY, owner TEXT NOT NULL, config TEXT NOT NULL,"
        " chat TEXT NOT NULL, chat_metadata TEXT NOT NULL, extra TEXT NOT NULL,"
        " turn INTEGER NOT NULL, version INTEGER NOT NULL)"
    ),
    "INSERT INTO wi_meta (key, value) VALUES ('schema', '1')",
    (
        "INSERT INTO wi_sessions VALUES ('se_1', 'alice', '{}',"
        ' \'[{"mes": "a"}, {"mes": "b"}]\', \'{"n": 1}\', \'{}\', 2, 5)'
    ),
]


def test_a_schema_1_database_keeps_its_chats_when_opened(url: str, tmp_path: Path) -> None:
    if url.startswith("postgresql"):
        psycopg = pytest.importorskip("psycopg")
        with psycopg.connect(url, autocommit=True) as conn:
            for statement in SCHEMA_1:
                conn.execute(statement)
    else:
        with sqlite3.connect(url) as conn:
            for statement in SCHEMA_1:
                conn.execute(statement)
        conn.close()
    store = open_storage(url)
    try:
        row = store.session("alice", "se_1")
        assert (row.chat, row.chat_metadata, row.turn, row.version) == (
            [{"mes": "a"}, {"mes": "b"}],
            {"n": 1},
            2,
            5,
        )
        with store.session_tx("alice", "se_1") as tx:
            tx.save(replace(tx.row, chat=[*tx.row.chat, {"mes": "c"}]))
        store.create_session(_session("se_2"))
        assert [m["mes"] for m in store.session("alice", "se_1").chat] == ["a", "b", "c"]
    finally:
        store.close()


def test_a_session_keeps_the_prefix_its_chat_shares_with_the_stored_one(store: Storage) -> None:
    store.create_session(replace(_session(), chat=[{"mes": m} for m in "abcd"]))
    for chat in ["abcde", "abXde", "ab", "", "pq", "pq"]:
        with store.session_tx("alice", "se_1") as tx:
            tx.save(replace(tx.row, chat=[{"mes": m} for m in chat]))
        assert store.session("alice", "se_1").chat == [{"mes": m} for m in chat]
    known = store.session("alice", "se_1")
    with store.session_tx("alice", "se_1", known=known) as tx:
        assert tx.row is known  # the stored version is the known one's: nothing else is read
        tx.save(replace(tx.row, chat_metadata={"b": 2}))
    with store.session_tx("alice", "se_1", known=known) as tx:
        assert tx.row is not known and tx.row.chat_metadata == {"b": 2}
    with pytest.raises(NotFound), store.session_tx("bob", "se_1", known=known):
        pass
