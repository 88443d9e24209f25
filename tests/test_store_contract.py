"""One contract for every record store: in-memory and SQLite behave the same (F15-F18)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from worldinfo.sources.retriever import RecordStore
from worldinfo.sources.retriever_chat import ChatSync, exchanges
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.store_memory import MemoryStore
from worldinfo.sources.store_sqlite import SqliteStore, StoreError
from worldinfo.types import Message

SETTINGS = RetrieverSettings(exclusion=0, stopword_share=Fraction("0.05"))
Factory = Callable[[], RecordStore]


@pytest.fixture(params=["memory", "sqlite"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Factory]:
    opened: list[RecordStore] = []

    def factory() -> RecordStore:
        store: RecordStore
        if request.param == "memory":
            store = MemoryStore(settings=SETTINGS)
        else:
            store = SqliteStore(tmp_path / "mem.db", settings=SETTINGS)
        opened.append(store)
        return store

    yield factory
    for s in opened:
        s.close()


def _fill(store: RecordStore, n: int = 30) -> None:
    for i in range(n):
        store.ingest(f"filler{i} common words here", f"reply{i} common words", source_ref=f"c#{i}")


def test_ingest_is_idempotent(make: Factory) -> None:
    store = make()
    first = store.ingest("alpha beta", "gamma", source_ref="x#0")
    assert first is not None
    assert store.ingest("alpha beta", "gamma", source_ref="x#0") is None
    assert store.ingest("other", "text", source_ref="x#0") is None
    assert len(store) == 1
    assert store.get("x#0") == first


def test_repeated_text_with_new_identity_is_kept(make: Factory) -> None:
    store = make()
    assert store.ingest("ab", "c", source_ref="x#0") is not None
    assert store.ingest("a", "bc", source_ref="x#1") is not None  # B10
    assert store.ingest("ab", "c", source_ref="x#2") is not None
    assert len(store) == 3


def test_system_exchanges_are_skipped(make: Factory) -> None:
    store = make()
    assert store.ingest("[System D] reset", "ok", source_ref="x#0") is None
    assert len(store) == 0


def test_ids_are_monotonic_and_never_reused(make: Factory) -> None:
    store = make()
    a = store.ingest("one", "1", source_ref="r#0")
    b = store.ingest("two", "2", source_ref="r#1")
    assert a is not None and b is not None and a.id < b.id
    assert store.delete("r#1")
    c = store.ingest("three", "3", source_ref="r#2")
    assert c is not None and c.id > b.id


def test_delete_decrements_counts_and_restores_rankings(make: Factory) -> None:
    store, fresh = make(), MemoryStore(settings=SETTINGS)
    _fill(store)
    _fill(fresh)
    before = store.retrieve("filler3 zeta")
    store.ingest("zeta filler3 extra", "unique reply", source_ref="z#0")
    assert store.retrieve("filler3 zeta").pick is not None
    assert store.delete("z#0")
    assert not store.delete("z#0")
    assert store.get("z#0") is None
    after = store.retrieve("filler3 zeta")
    assert after.keywords == before.keywords == fresh.retrieve("filler3 zeta").keywords
    assert after.score == before.score
    assert store.index.total == fresh.index.total  # type: ignore[attr-defined]


def test_floor_returns_nothing(make: Factory) -> None:
    store = make()
    _fill(store)
    r = store.retrieve("nothing known at all")
    assert r.pick is None and r.block == "" and r.window == ()


def test_ties_go_to_the_most_recent(make: Factory) -> None:
    store = make()
    _fill(store)
    a = store.ingest("kiwi", "x", source_ref="t#0")
    b = store.ingest("kiwi", "x", source_ref="t#1")
    assert a is not None and b is not None
    r = store.retrieve("kiwi")
    assert r.pick == b
    assert r.score is not None and r.score.s115 > 0


def test_exclusion_window(make: Factory, tmp_path: Path) -> None:
    store = make()
    _fill(store)
    store.ingest("mango", "x", source_ref="m#0")
    assert store.retrieve("mango").pick is not None
    for name in ("a", "b"):
        store.ingest(f"{name}1 {name}2", "y", source_ref=f"m#{name}")
    store.settings = RetrieverSettings(exclusion=3, stopword_share=Fraction("0.05"))
    store.index.stop_rule = store.settings  # type: ignore[attr-defined]
    assert store.retrieve("mango").pick is None
    store.settings = RetrieverSettings(exclusion=2, stopword_share=Fraction("0.05"))
    assert store.retrieve("mango").pick is not None


def test_window_shows_neighbours(make: Factory) -> None:
    store = make()
    _fill(store, 5)
    r = store.retrieve("filler2")
    assert r.pick is not None
    assert [rec.source_ref for rec in r.window] == ["c#1", "c#2", "c#3"]
    assert r.block.count("\nUser: ") == 3 and r.block.count("\nCharacter: ") == 3
    first = store.retrieve("filler0")
    assert [rec.source_ref for rec in first.window] == ["c#0", "c#1"]


def test_chat_sync_follows_edits_and_undo(make: Factory) -> None:
    store = make()
    chat = [
        Message(name="Char", mes="Hello there"),
        Message(name="U", mes="first question", is_user=True),
        Message(name="Char", mes="first answer"),
        Message(name="U", mes="second question", is_user=True),
        Message(name="Char", mes="second answer"),
        Message(name="U", mes="pending", is_user=True),
    ]
    sync = ChatSync(store, chat_id="c")
    assert sync.sync(chat) == (2, 0)
    assert sync.sync(chat) == (0, 0)
    edited = [*chat[:4], Message(name="Char", mes="swiped answer")]
    assert sync.sync(edited) == (1, 1)
    assert sync.sync(chat[:3]) == (0, 1)
    assert [r.user for r in store.records()] == ["first question"]
    assert ChatSync(store, chat_id="c").sync(chat) == (1, 0)


def test_sqlite_persists_and_reloads(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with SqliteStore(path, settings=SETTINGS) as store:
        _fill(store)
        store.delete("c#4")
        want = store.retrieve("filler7 reply9", "reply3")
        state = (store.index.total, list(store.index.counts), len(store))
    with SqliteStore(path, settings=SETTINGS) as again:
        assert (again.index.total, list(again.index.counts), len(again)) == state
        got = again.retrieve("filler7 reply9", "reply3")
        assert got.score == want.score and got.keywords == want.keywords
        assert got.pick == want.pick
        assert again.ingest("new", "one", source_ref="n#0") is not None
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_sqlite_rejects_foreign_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError):
        SqliteStore(bad)
    other = tmp_path / "other.db"
    SqliteStore(other).close()
    with pytest.raises(StoreError):
        SqliteStore(other, settings=RetrieverSettings(punctuation="unicode"))


def test_rebuild_is_deterministic(tmp_path: Path) -> None:
    chat = [
        Message(name="U" if i % 2 == 0 else "C", mes=f"m{i} w{i % 7}", is_user=i % 2 == 0)
        for i in range(40)
    ]
    states = []
    for n in range(2):
        with SqliteStore(tmp_path / f"r{n}.db", settings=SETTINGS) as store:
            for ex in exchanges(chat, chat_id="f"):
                store.ingest(ex.user, ex.reply, source_ref=ex.source_ref)
            states.append([(r.id, r.source_ref, r.user_tokens.tolist()) for r in store.records()])
    assert states[0] == states[1] and len(states[0]) == 20


def test_chat_sync_adopts_the_id_an_earlier_ingest_used(make: Factory) -> None:
    store = make()
    chat = [
        Message(name="U", mes="first question", is_user=True),
        Message(name="C", mes="first answer"),
        Message(name="U", mes="second question", is_user=True),
        Message(name="C", mes="second answer"),
    ]
    assert ChatSync(store, chat_id="file-stem").sync(chat[:2]) == (1, 0)
    live = ChatSync(store, chat_id="chat")
    assert live.sync(chat) == (1, 0)
    assert live.chat_id == "file-stem" and len(store) == 2
    other = ChatSync(store, chat_id="chat", adopt=False)
    assert other.sync(chat) == (2, 0)
