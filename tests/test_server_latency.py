"""What a worker does for its latency besides the scan: no entry hashes for a response, a
collector that leaves the prepared books alone (``prepared.Heap``), and a ``Server-Timing``
header that says where a request's time went (``timing``), response bodies by orjson
(``encode``)."""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")

import httpx

from worldinfo.examples import path as example
from worldinfo.result import ScanResult
from worldinfo.server.app import ServerConfig, create_app
from worldinfo.server.encode import encode
from worldinfo.server.prepared import Heap
from worldinfo.server.wire import scan_json


@pytest.fixture
def collector() -> Iterator[None]:
    """Give the process's collector back as it was (these tests freeze and re-tune it)."""
    threshold = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


_MSG = {"name": "User", "is_user": True, "mes": "Emberfall"}


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector frees it


def test_a_response_reads_titles_and_keys_without_hashing_the_entries() -> None:
    hashed: list[int] = []
    entries = ({"uid": 3, "world": "w", "comment": "Harbour"}, {"uid": 4, "world": "w"})

    def finish() -> tuple[dict[str, object], ...]:
        hashed.append(1)
        return entries

    result = ScanResult(_activated=entries, _finish=finish)
    out = scan_json(result)
    assert result.activated_titles == ["Harbour", ""]
    assert out["activated"] == [{"uid": 3, "world": "w"}, {"uid": 4, "world": "w"}]
    assert hashed == []  # the full entries (entries=true) are what needs the hashes
    assert [str(e.get("comment") or "") for e in result.activated] == result.activated_titles
    assert hashed == [1]


def test_a_heap_does_nothing_until_activated(collector: None) -> None:
    heap = Heap()
    frozen = gc.get_freeze_count()
    heap.settle(grown=(1,), dropped=(0,))
    assert (heap.full, gc.get_freeze_count()) == (0, frozen)


def test_growth_freezes_the_heap_and_a_dropped_cache_unfreezes_it_first(collector: None) -> None:
    heap = Heap()
    heap.activate(young=12_345)
    assert gc.get_threshold()[0] == 12_345
    node = _Node()
    alive = weakref.ref(node)
    heap.settle(grown=(1, 1), dropped=(0, 0))
    assert heap.full == 1 and gc.get_freeze_count() > 0
    del node
    heap.settle(grown=(1, 1), dropped=(0, 0))  # nothing new: no collection
    gc.collect()
    assert alive() is not None  # frozen with the heap: the collector does not see it
    heap.settle(grown=(2, 1), dropped=(0, 0))  # grown: only what is young is collected
    assert alive() is not None and heap.full == 1
    heap.settle(grown=(2, 1), dropped=(1, 0))  # a cache dropped something: all of it
    assert alive() is None and heap.full == 2 and gc.get_freeze_count() > 0


def _timing(header: str) -> dict[str, float]:
    parts = (p.strip().split(";dur=") for p in header.split(","))
    return {name: float(ms) for name, ms in parts}


def test_a_worker_freezes_what_it_prepared_and_times_each_request(
    tmp_path: Path, collector: None
) -> None:
    app = create_app(ServerConfig(database=str(tmp_path / "h.db")))
    server = app.state.server
    server.activate()
    card = example("archivist-card.json").read_bytes()

    async def chat() -> list[dict[str, float]]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://worker") as c:
            up = (await c.post("/v1/imports", content=card)).json()["id"]
            sid = (await c.post("/v1/sessions", json={"character": up})).json()["id"]
            timings = []
            for _ in range(3):
                r = await c.post(f"/v1/sessions/{sid}/generate", json={"append": [_MSG]})
                assert r.status_code == 200
                timings.append(_timing(r.headers["server-timing"]))
            return timings

    try:
        phases = {"total", "queue", "work", "work-cpu", "slot", "db", "scan", "scan-cpu"}
        for t in asyncio.run(chat()):
            assert set(t) == phases | {"encode", "gc"}
            assert 0 < t["scan"] < t["work"] < t["total"] and t["scan-cpu"] < t["work-cpu"]
            assert t["queue"] + t["work"] <= t["total"]
            assert t["slot"] + t["db"] + t["scan"] + t["encode"] < t["work"]
            assert 0 <= t["gc"] <= t["total"]
        assert server.service.heap.full == 1  # one full collection; later ones were young
        assert gc.get_freeze_count() > 0
    finally:
        server.gc.uninstall()
        server.pool.shutdown()
        server.service.storage.close()


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(value=JSON)
def test_a_response_body_reads_back_as_the_standard_encoder_writes_it(value: object) -> None:
    plain = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    assert json.loads(encode(value)) == json.loads(plain)  # big integers included


def test_a_body_with_nan_is_refused_as_not_json(tmp_path: Path) -> None:
    app = create_app(ServerConfig(database=str(tmp_path / "n.db")))

    async def post() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://worker") as c:
            return await c.post("/v1/sessions", content=b'{"chat_metadata": {"x": NaN}}')

    try:
        r = asyncio.run(post())
        assert r.status_code == 400
        assert r.json()["error"]["problems"] == [
            {"json_path": "$", "message": "not JSON: NaN is not JSON"}
        ]
    finally:
        app.state.server.pool.shutdown()
        app.state.server.service.storage.close()


def test_request_bodies_are_parsed_in_the_pool_not_on_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from worldinfo._js import JSONBounds, check_json_bounds
    from worldinfo.server import app as app_module

    threads: list[str] = []
    check = check_json_bounds

    def spy(raw: bytes, bounds: JSONBounds) -> None:
        threads.append(threading.current_thread().name)
        check(raw, bounds)

    monkeypatch.setattr(app_module, "check_json_bounds", spy)
    app = create_app(ServerConfig(database=str(tmp_path / "p.db")))
    card = example("archivist-card.json").read_bytes()

    async def chat() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://worker") as c:
            up = (await c.post("/v1/imports", content=card)).json()["id"]
            sid = (await c.post("/v1/sessions", json={"character": up})).json()["id"]
            r = await c.post(f"/v1/sessions/{sid}/generate", json={"append": [_MSG]})
            assert r.status_code == 200

    try:
        asyncio.run(chat())
        assert len(threads) == 2 and all(t.startswith("worldinfo") for t in threads)
    finally:
        app.state.server.pool.shutdown()
        app.state.server.service.storage.close()
