"""Timestamps in the stores: schema v1 -> v2 migration, round trips, chats with send_date."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from worldinfo.memory import (
    MemoryStore,
    RetrieverSettings,
    SqliteStore,
    StoreError,
    TimestampError,
    ingest_st_chat,
)
from worldinfo.sources.retriever_chat import exchanges, parse_st_chat, st_chat_dates

DATA = Path(__file__).resolve().parent / "data" / "memory"
V1 = DATA / "store-v1.sqlite"  # schema v1, see README.md beside it


def _version(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return int(con.execute("PRAGMA user_version").fetchone()[0])
    finally:
        con.close()


def test_a_v1_store_opens_migrated_and_keeps_its_records(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copy(V1, db)
    assert _version(db) == 1
    with SqliteStore(db) as store:
        assert sorted(store.source_refs()) == ["old#0:a", "old#2:c"]
        assert all(r.timestamp is None for r in store.records())
        store.ingest("A new one.", "With a date.", source_ref="new#0", timestamp="2024-05-04")
    assert _version(db) == 2
    with SqliteStore(db, settings=RetrieverSettings(ranking="ranked", exclusion=0)) as store:
        got = store.get("new#0")
        assert got is not None and got.timestamp == datetime(2024, 5, 4)
        assert store.retrieve("meteor shower", top=3).hits[0].source_ref == "old#2:c"
        on_day = store.retrieve("what happened on May 4th, 2024?", top=3).hits
        assert [h.source_ref for h in on_day] == ["new#0"]


def test_a_failed_migration_rolls_back(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copy(V1, db)
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE records ADD COLUMN timestamp TEXT")  # the migration will collide
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="duplicate column"):
        SqliteStore(db)
    assert _version(db) == 1
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM records").fetchone() == (2,)
    con.close()


def test_timestamps_round_trip_in_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    stamps = [1682608440000, "April 27, 2023 3:14pm", "2023-04-27T15:14:00+02:00", None]
    with SqliteStore(db) as store:
        for i, stamp in enumerate(stamps):
            store.ingest(f"user {i}", f"reply {i}", source_ref=str(i), timestamp=stamp)
        before = [r.timestamp for r in store.records()]
    with SqliteStore(db) as store:
        assert [r.timestamp for r in store.records()] == before
    assert before[0] == datetime(2023, 4, 27, 15, 14, tzinfo=UTC) and before[3] is None


def test_a_bad_timestamp_writes_nothing(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "m.db") as store:
        with pytest.raises(TimestampError):
            store.ingest("u", "r", source_ref="x", timestamp="the day after tomorrow")
        assert len(store) == 0 and store.get("x") is None
    memory = MemoryStore()
    with pytest.raises(TimestampError):
        memory.ingest("u", "r", source_ref="x", timestamp=[1])
    assert len(memory) == 0


def test_a_malformed_stored_timestamp_is_a_store_error(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with SqliteStore(db) as store:
        store.ingest("u", "r", source_ref="x", timestamp="2024-01-01")
    con = sqlite3.connect(db)
    con.execute("UPDATE records SET timestamp = 'soon'")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match=r"record 1 has a malformed timestamp 'soon'"):
        SqliteStore(db)


def _chat(path: Path) -> None:
    lines = [
        {"user_name": "Ann", "character_name": "Nova"},
        {"name": "Nova", "is_user": False, "mes": "Hello!", "send_date": "May 1, 2023 9:00am"},
        {"name": "Ann", "is_user": True, "mes": "I planted basil.", "send_date": 1682931600000},
        {"name": "Nova", "is_user": False, "mes": "Basil loves sun.", "send_date": "garbled"},
        {"name": "Ann", "is_user": True, "mes": "And mint.", "send_date": "not a date"},
        {
            "name": "Nova",
            "is_user": False,
            "mes": "Mint spreads.",
            "send_date": "2023-5-2@10h00m00s",
        },
        {"name": "Ann", "is_user": True, "mes": "Undated one."},
        {"name": "Nova", "is_user": False, "mes": "Fine."},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


def test_st_chats_ingest_with_their_dates(tmp_path: Path) -> None:
    chat = tmp_path / "garden.jsonl"
    _chat(chat)
    text = chat.read_text(encoding="utf-8")
    _, messages = parse_st_chat(text)
    assert len(st_chat_dates(text)) == len(messages)
    got = exchanges(messages, chat_id="g", dates=st_chat_dates(text))
    assert [e.timestamp for e in got] == [
        datetime(2023, 5, 1, 9, 0, tzinfo=UTC),  # the user's send_date
        datetime(2023, 5, 2, 10, 0),  # the user's is unreadable: the reply's
        None,
    ]
    assert [e.source_ref for e in got] == [e.source_ref for e in exchanges(messages, chat_id="g")]
    store = MemoryStore(settings=RetrieverSettings(ranking="ranked", exclusion=0))
    assert ingest_st_chat(store, chat) == (3, 0)
    assert ingest_st_chat(store, chat) == (0, 0)
    hits = store.retrieve("What did I plant on May 1st?").hits
    assert [h.user for h in hits] == ["I planted basil."]


def test_bad_chat_lines_name_the_file(tmp_path: Path) -> None:
    chat = tmp_path / "bad.jsonl"
    chat.write_text('{"user_name": "x"}\n{not json\n', encoding="utf-8")
    with pytest.raises(ValueError, match="bad.jsonl"):
        ingest_st_chat(MemoryStore(), chat)


def test_a_foreign_v1_database_is_not_migrated(tmp_path: Path) -> None:
    db = tmp_path / "other.db"
    shutil.copy(V1, db)
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value = 'someone-else/1' WHERE key = 'format'")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match=r"not a chat-memory database \(format 'someone-else/1'"):
        SqliteStore(db)
    assert _version(db) == 1
