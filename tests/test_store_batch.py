"""``ingest_many``: one transaction per batch, the same store as one-by-one ingests (F15, F18)."""

from __future__ import annotations

import gc
import os
import random
import re
import signal
import sqlite3
import string
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from worldinfo._collector import collector_paused
from worldinfo.sources.retriever import ExchangeData
from worldinfo.sources.retriever_chat import ChatSync, Exchange, exchanges
from worldinfo.sources.retriever_index import RetrieverIndex
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.retriever_tokenize import tokenize
from worldinfo.sources.store_errors import StoreError
from worldinfo.sources.store_memory import MemoryStore
from worldinfo.sources.store_sqlite import SqliteStore
from worldinfo.sources.timestamps import TimestampError
from worldinfo.types import Message

SETTINGS = RetrieverSettings(exclusion=0, stopword_share=Fraction("0.05"))


def _exchanges(n: int, *, seed: int = 7, prefix: str = "c") -> list[Exchange]:
    """Exchanges over a small vocabulary, each bringing a new word or two (ids interleave)."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(60)]
    out = []
    for i in range(n):
        user = " ".join(rng.choices(vocab, k=rng.randint(1, 8)) + [f"{prefix}new{i}"])
        reply = " ".join(rng.choices(vocab, k=rng.randint(0, 12)) + [f"{prefix}late{i // 3}"])
        when = datetime(2024, 5, 1 + i % 28, 10) if i % 2 else None
        out.append(Exchange(source_ref=f"{prefix}#{i}", user=user, reply=reply, timestamp=when))
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class _Raw:
    source_ref: str
    user: str
    reply: str
    timestamp: object


def _state(store: SqliteStore | MemoryStore) -> tuple[object, ...]:
    index = store.index
    records = [
        (
            r.id,
            r.source_ref,
            r.user,
            r.reply,
            list(r.user_tokens),
            list(r.reply_tokens),
            r.timestamp,
        )
        for r in store.records()
    ]
    return (index.words, index.counts, index.total, records, [list(p) for p in index.post[0]])


def test_a_batch_gives_the_store_one_by_one_ingests_give(tmp_path: Path) -> None:
    items = _exchanges(120)
    items.insert(50, Exchange(source_ref="sys#0", user="[System D] note", reply="x"))
    items.insert(70, items[10])  # a repeat within the batch is a no-op
    one = SqliteStore(tmp_path / "one.db", settings=SETTINGS)
    many = SqliteStore(tmp_path / "many.db", settings=SETTINGS)
    want = [
        one.ingest(ex.user, ex.reply, source_ref=ex.source_ref, timestamp=ex.timestamp)
        for ex in items
    ]
    got = many.ingest_many(items[:40]) + many.ingest_many(items[40:])
    assert got == want
    assert [rec is None for rec in got].count(True) == 2
    assert _state(many) == _state(one)
    for text in ("w3 w7 cnew5", "clate9 w1", "w12 w40 w41"):
        assert many.retrieve(text, top=3) == one.retrieve(text, top=3)
    one.close()
    many.close()
    with SqliteStore(tmp_path / "many.db", settings=SETTINGS) as again:
        assert _state(again) == _state(one)
    memory = MemoryStore(settings=SETTINGS)
    assert [r is None for r in memory.ingest_many(items)] == [r is None for r in want]
    assert _state(memory)[:3] == _state(one)[:3]


def test_a_batch_of_several_insert_statements_stores_every_row(tmp_path: Path) -> None:
    """Rows go in 100 to a statement, with and without timestamps apart: a batch of 253
    (stamped and unstamped both more than 100, a remainder of each) reads back as the
    records one-by-one ingests store."""
    items = _exchanges(253, seed=3)
    one = SqliteStore(tmp_path / "one.db", settings=SETTINGS)
    for ex in items:
        one.ingest(ex.user, ex.reply, source_ref=ex.source_ref, timestamp=ex.timestamp)
    with SqliteStore(tmp_path / "many.db", settings=SETTINGS) as many:
        assert None not in many.ingest_many(items)
    with SqliteStore(tmp_path / "many.db", settings=SETTINGS) as again:
        assert _state(again) == _state(one)
        assert sum(r.timestamp is None for r in again.records()) == 127
    one.close()


def test_ids_continue_past_a_deleted_last_record(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "m.db", settings=SETTINGS) as store:
        store.ingest_many(_exchanges(3))
        assert store.delete("c#2")
        got = store.ingest_many(_exchanges(2, prefix="d"))
        assert [r.id for r in got if r is not None] == [4, 5]


def test_a_bad_timestamp_stores_nothing_of_the_batch(tmp_path: Path) -> None:
    items: list[ExchangeData] = list(_exchanges(5))
    items[3] = _Raw(source_ref="c#3", user="u", reply="r", timestamp="not a date at all")
    for store in (SqliteStore(tmp_path / "m.db", settings=SETTINGS), MemoryStore()):
        with pytest.raises(TimestampError):
            store.ingest_many(items)
        assert len(store) == 0 and store.index.words == []
        store.close()


def test_a_failing_batch_leaves_store_and_object_unchanged(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    store = SqliteStore(db, settings=SETTINGS)
    store.ingest_many(_exchanges(10))
    before = _state(store)
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TRIGGER boom BEFORE INSERT ON records WHEN NEW.source_ref = 'd#4'"
        " BEGIN SELECT RAISE(ABORT, 'refused'); END"
    )
    con.commit()
    with pytest.raises(StoreError, match=r"could not store exchange 'd#0' \(and the 7 after it\)"):
        store.ingest_many(_exchanges(8, prefix="d"))
    assert _state(store) == before
    con.execute("DROP TRIGGER boom")
    con.commit()
    con.close()
    got = store.ingest_many(_exchanges(8, prefix="d"))
    assert all(got) and len(store) == 18
    store.close()
    with SqliteStore(db, settings=SETTINGS) as again:
        assert _state(again) == _state(store)


def test_a_batch_already_stored_by_another_process_is_skipped(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    mine, other = SqliteStore(db), SqliteStore(db)
    items = _exchanges(6)
    assert all(other.ingest_many(items[2:4]))
    got = mine.ingest_many(items)  # it learns of c#2 and c#3 under the lock only
    assert [r is not None for r in got] == [True, True, False, False, True, True]
    assert [r.source_ref for r in mine.records()] == ["c#2", "c#3", "c#0", "c#1", "c#4", "c#5"]
    # the batch was tokenised again without them: word ids as one-by-one ingests give them
    alone = SqliteStore(tmp_path / "alone.db")
    for ex in [*items[2:4], *items[:2], *items[4:]]:
        alone.ingest(ex.user, ex.reply, source_ref=ex.source_ref, timestamp=ex.timestamp)
    assert _state(mine) == _state(alone)
    mine.close()
    other.close()
    alone.close()


def test_add_many_refuses_a_bad_batch_whole() -> None:
    index = RetrieverIndex()
    store = MemoryStore()
    store.ingest_many(_exchanges(3))
    records = list(store.records())
    for w in store.index.words:
        index.word_id(w)
    index.add(records[0])
    with pytest.raises(ValueError, match="ids must grow"):
        index.add_many([records[2], records[1]])
    with pytest.raises(ValueError, match="already present"):
        index.add_many([records[1], records[0]])
    assert len(index) == 1 and index.total == len(records[0].user_tokens) + len(
        records[0].reply_tokens
    )


def test_chat_sync_commits_in_chunks_and_reports_progress_every_100(tmp_path: Path) -> None:
    messages = []
    for i in range(1234):
        messages.append(Message(name="You", is_user=True, mes=f"question {i} w{i % 17}"))
        messages.append(Message(name="C", is_user=False, mes=f"answer {i}"))
    store = SqliteStore(tmp_path / "m.db", settings=SETTINGS)
    calls: list[tuple[int, int]] = []
    commits: list[int] = []
    store._db.set_trace_callback(lambda sql: commits.append(1) if sql == "COMMIT" else None)
    sync = ChatSync(store, chat_id="chat", adopt=False)
    assert sync.sync(messages[:600], progress=lambda *call: calls.append(call)) == (300, 0)
    assert sync.sync(messages, progress=lambda *call: calls.append(call)) == (934, 0)
    assert calls == [(n, 300) for n in (100, 200, 300)] + [(n, 1234) for n in range(400, 1201, 100)]
    assert len(commits) == 1 + 2  # 300; then 934 = 500 + 434
    assert [r.source_ref for r in store.records()] == [
        e.source_ref for e in exchanges(messages, chat_id="chat")
    ]
    store.close()


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_the_ascii_fast_path_tokenises_as_casefold_and_translate(text: str) -> None:
    table = {ord(c): None for c in string.punctuation}
    want = text.casefold().translate(table).split()
    assert tokenize(text) == want
    assert tokenize(text, punctuation="unicode") == want


WRITER = textwrap.dedent(
    """
    import sys
    from worldinfo.sources.retriever_chat import Exchange
    from worldinfo.sources.store_sqlite import SqliteStore
    store = SqliteStore(sys.argv[1])
    b = 0
    while True:
        batch = [
            Exchange(source_ref=f"b{b}#{k}", user=f"user {b} w{k % 97}", reply=f"reply {k} " * 9)
            for k in range(50)
        ]
        if all(store.ingest_many(batch)):
            sys.stdout.write(f"ack {b}\\n")
            sys.stdout.flush()
        b += 1
    """
)


@pytest.mark.skipif(os.name != "posix", reason="needs SIGKILL")
@pytest.mark.parametrize("kill_after", [1, 23])
def test_sigkill_during_batches_keeps_every_acknowledged_batch_whole(
    tmp_path: Path, kill_after: int
) -> None:
    db = tmp_path / "crash.db"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    acked: list[int] = []
    for line in proc.stdout:
        acked.append(int(line.split()[1]))
        if len(acked) >= kill_after:
            proc.send_signal(signal.SIGKILL)
            break
    acked.extend(int(line.split()[1]) for line in proc.stdout if line.startswith("ack "))
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    with SqliteStore(db) as store:
        per_batch: dict[str, int] = {}
        for ref in store.source_refs():
            per_batch[ref.partition("#")[0]] = per_batch.get(ref.partition("#")[0], 0) + 1
        assert all(per_batch.get(f"b{b}") == 50 for b in acked)
        assert set(per_batch.values()) == {50}  # no batch half-stored


def test_readme_batch_example_prints_what_it_shows(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    blocks = re.findall(
        r"```python\n((?:(?!```).)*)```\n\n```text\n((?:(?!```).)*)```",
        (root / "README.md").read_text(encoding="utf-8"),
        re.DOTALL,
    )
    [(code, shown)] = [block for block in blocks if "ingest_many" in block[0]]
    env = {**os.environ, "PYTHONPATH": str(root)}
    run = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == shown
    assert (tmp_path / "batch.db").exists()


def test_a_batch_pauses_the_collector_and_restores_it_on_every_exit(tmp_path: Path) -> None:
    seen: list[bool] = []
    with collector_paused():
        seen.append(gc.isenabled())
    with pytest.raises(KeyError), collector_paused():
        seen.append(gc.isenabled())
        raise KeyError("boom")
    assert seen == [False, False] and gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # the caller's choice is left alone
    finally:
        gc.enable()
    store = SqliteStore(tmp_path / "m.db", settings=SETTINGS)
    bad = _Raw(source_ref="bad#0", user="a", reply="b", timestamp="not a date")
    with pytest.raises(TimestampError):
        store.ingest_many([*_exchanges(3), bad])
    assert gc.isenabled() and len(store) == 0
    store.close()
