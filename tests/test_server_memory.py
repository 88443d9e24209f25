"""Memory stores through the server: ingest and query, and memories in a session's scans.

The server keeps the retriever's own store in its database; results equal the library's
``MemoryStore`` and ``MemorySource`` driven the same way, across a server restart.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")

from serverkit import BACKENDS, ServerProcess, database

from worldinfo._js import mulberry32
from worldinfo.server.sessions import turn_seed
from worldinfo.session import CountingRng, Session
from worldinfo.sources.memory_mode import MemoryPlacement, MemorySource
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.store_memory import MemoryStore
from worldinfo.types import Book, Entry, Message

RETRIEVER = {"exclusion": 4, "character_name": "Nova", "stopword_share": 0.05}
SETTINGS = RetrieverSettings(exclusion=4, character_name="Nova", stopword_share=0.05)
BOOK = {"entries": {"0": {"uid": 0, "key": ["harbour"], "content": "The harbour is old."}}}
TURNS = ["remember topic4 please", "topic4 once more", "unrelated words only", "topic7 instead"]


def _chat() -> list[dict[str, Any]]:
    chat: list[dict[str, Any]] = [{"name": "Nova", "mes": "Welcome aboard.", "is_user": False}]
    for i in range(20):
        chat.append({"name": "Ann", "mes": f"topic{i} question about things", "is_user": True})
        chat.append({"name": "Nova", "mes": f"answer{i} about things indeed", "is_user": False})
    return chat


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with database(request.param, tmp_path) as url:
        yield url


def test_ingest_and_query_equal_the_library_store(db: str, tmp_path: Path) -> None:
    exchanges = [
        {
            "user": f"topic{i} question about lantern{i % 3} things",
            "reply": f"answer{i} about things indeed",
            "source_ref": f"c#{i}",
        }
        for i in range(30)
    ]
    lib = MemoryStore(settings=SETTINGS)
    for ex in exchanges:
        lib.ingest(ex["user"], ex["reply"], source_ref=ex["source_ref"])
    want = lib.retrieve("remember topic4 and lantern1 please", lore=frozenset(), top=3)
    with ServerProcess(db, tmp_path=tmp_path) as s, httpx.Client(base_url=s.url) as c:
        store = c.post("/v1/memories", json={"settings": RETRIEVER}).json()["id"]
        r = c.post(f"/v1/memories/{store}/ingest", json={"exchanges": exchanges + exchanges[:2]})
        assert r.json() | {"id": None} == {"id": None, "ingested": 30, "deleted": 0, "records": 30}
    with ServerProcess(db, tmp_path=tmp_path) as s, httpx.Client(base_url=s.url) as c:
        got = c.post(
            f"/v1/memories/{store}/query",
            json={"text": "remember topic4 and lantern1 please", "top": 3},
        ).json()
        other = c.post("/v1/memories/me_unknown/query", json={"text": "x"})
    assert want.pick is not None and got["pick"]["record"] == want.pick.id
    assert [x["record"] for x in got["ranked"]] == [x.record_id for x in want.ranked]
    assert got["block"] == want.block
    assert other.status_code == 404


def test_a_session_with_memory_equals_the_library_across_a_restart(db: str, tmp_path: Path) -> None:
    f = tmp_path / "world.json"
    f.write_text(json.dumps(BOOK), encoding="utf-8")
    placement = {"cooldown": 5}
    server = ServerProcess(db, tmp_path=tmp_path)
    c = httpx.Client(base_url=server.url, timeout=60)
    book = c.post("/v1/imports", content=f.read_bytes(), params={"name": "world.json"}).json()
    store = c.post("/v1/memories", json={"settings": RETRIEVER}).json()["id"]
    body = {
        "books": [book["id"]],
        "chat": _chat(),
        "seed": 3,
        "memory": {"store": store, "placement": placement},
    }
    sid = c.post("/v1/sessions", json=body).json()["id"]

    lib_store = MemoryStore(settings=SETTINGS)
    source = MemorySource(lib_store, placement=MemoryPlacement(cooldown=5), chat_id=sid)
    lib = Session(
        books={"world": Book(name="world", entries=(Entry.new(0, **BOOK["entries"]["0"]),))},
        global_books=["world"],
        chat=[Message(**m) for m in _chat()],
        sources=[source],
    )
    for turn, text in enumerate(TURNS):
        if turn == 2:  # a restart in the middle: everything comes back from the database
            server.stop()
            c.close()
            server = ServerProcess(db, tmp_path=tmp_path)
            c = httpx.Client(base_url=server.url, timeout=60)
        msg = {"name": "Ann", "mes": text, "is_user": True}
        got = c.post(f"/v1/sessions/{sid}/generate", json={"append": [msg]}).json()
        lib.rng = CountingRng(mulberry32(turn_seed(3, turn)))
        want = lib.generate("normal", append=[Message(**msg)])
        assert got["activated"] == want.to_json()["activated"], text
        assert got["chat_metadata"] == json.loads(json.dumps(lib.chat_metadata))
        reply = {"name": "Nova", "mes": f"reply to {text}", "is_user": False}
        c.post(f"/v1/sessions/{sid}/messages", json={"messages": [reply]})
        lib.append([Message(**reply)])
    memories = [a for a in got["activated"] if a["world"] == "chat memory"]
    assert memories, "the last turn retrieves a memory"
    server.stop()
    c.close()
