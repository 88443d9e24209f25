"""The service without HTTP: uploads are prepared once per worker, by content hash."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")

from worldinfo import importers
from worldinfo._js import UNDEFINED
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.examples import path as example
from worldinfo.importers import Limits
from worldinfo.result import DepthGroup, ExampleEntry, ScanResult
from worldinfo.server import handlers as h
from worldinfo.server.backends import open_storage
from worldinfo.server.service import Service
from worldinfo.server.store_sqlite import SqliteStorage
from worldinfo.server.wire import scan_json

_USER = {"name": "User", "is_user": True, "mes": "Emberfall"}


def test_the_same_bytes_are_imported_once_per_worker(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    raw = example("emberfall.json").read_bytes()
    svc = Service(open_storage(db), limits=Limits())
    a = svc.import_upload("", raw, name="a.json", trust=False)
    b = svc.import_upload("", raw, name="b.json", trust=False)
    c = svc.import_upload("", raw, name="c.json", trust=True)
    assert a.id != b.id and a.sha256 == b.sha256 == c.sha256
    assert svc.imported(a) is svc.imported(b)  # one prepared book for both uploads
    assert svc.imported(a) is not svc.imported(c)  # trust is part of the key
    assert svc.uploads.misses == 2
    sid = h.create_session(svc, "", {"books": [a.id, b.id]})["id"]
    msg = {"name": "User", "is_user": True, "mes": "Emberfall"}
    h.generate(svc, "", sid, {"append": [msg]})
    svc.storage.close()

    other = Service(open_storage(db), limits=Limits())  # another worker: imports once itself
    h.generate(other, "", sid, {"append": [msg]})
    h.generate(other, "", sid, {"append": [msg]})
    assert other.uploads.misses == 1
    assert h.session_json(other.storage.session("", sid))["turn"] == 3
    other.storage.close()


def _two_workers(db: str) -> tuple[Service, Service, str]:
    raw = example("emberfall.json").read_bytes()
    a = Service(open_storage(db), limits=Limits())
    b = Service(open_storage(db), limits=Limits())
    book = a.import_upload("", raw, name="e.json", trust=False)
    sid = h.create_session(a, "", {"books": [book.id], "seed": 11})["id"]
    return a, b, sid


TURNS = [
    ("a", {"append": [{"name": "User", "is_user": True, "mes": "Emberfall harbour"}]}),
    ("a", {"append": [{"name": "Guide", "mes": "The fog."}, _USER]}),
    ("b", {"type": "regenerate"}),
    ("a", {"type": "swipe"}),
    ("b", {"append": [_USER]}),
    ("a", {"append": [_USER], "dry_run": True}),
    ("a", {"append": [_USER]}),
]


def test_a_worker_uses_its_parsed_session_only_while_the_stored_version_has_not_moved(
    tmp_path: Path,
) -> None:
    a, b, sid = _two_workers(str(tmp_path / "two.db"))
    one, _, solo = _two_workers(str(tmp_path / "one.db"))
    got, want = [], []
    for worker, body in TURNS:
        got.append(h.generate(a if worker == "a" else b, "", sid, body))
        want.append(h.generate(one, "", solo, body))
    strip = [{k: v for k, v in r.items() if k != "session"} for r in got]
    assert strip == [{k: v for k, v in r.items() if k != "session"} for r in want]
    stored, alone = a.storage.session("", sid), one.storage.session("", solo)
    assert (stored.chat, stored.chat_metadata, stored.turn) == (
        alone.chat,
        alone.chat_metadata,
        alone.turn,
    )
    # a made the session (its first turn finds it parsed) and reads the row again after
    # each write by b; b reads it on both its turns
    assert (a.sessions.misses, b.sessions.misses) == (2, 2)
    for svc in (a, b, one):
        svc.storage.close()


def test_a_turn_writes_only_the_messages_it_changed(tmp_path: Path) -> None:
    a, _, sid = _two_workers(str(tmp_path / "s.db"))
    storage = a.storage
    assert isinstance(storage, SqliteStorage)
    h.generate(a, "", sid, {"append": [_USER, {"name": "Guide", "mes": "Fog."}, _USER]})
    statements: list[str] = []
    storage.conn().set_trace_callback(statements.append)  # type: ignore[attr-defined]
    h.generate(a, "", sid, {"append": [{"name": "Guide", "mes": "Bells."}, _USER]})
    inserts = [s for s in statements if s.startswith("INSERT INTO wi_chat")]
    assert len(inserts) == 2 and not [s for s in statements if "SELECT message" in s]
    statements.clear()
    h.generate(a, "", sid, {"type": "regenerate"})  # the last message is the user's: kept
    h.add_messages(a, "", sid, {"messages": [{"name": "Guide", "mes": "Again."}]})
    h.add_messages(
        a, "", sid, {"messages": [{"name": "Guide", "mes": "No."}], "replace_last": True}
    )
    assert [s for s in statements if s.startswith("DELETE FROM wi_chat")] != []
    storage.conn().set_trace_callback(None)  # type: ignore[attr-defined]
    chat = SqliteStorage(storage.path).session("", sid).chat
    assert [m["mes"] for m in chat if isinstance(m, dict)] == [
        "Emberfall",
        "Fog.",
        "Emberfall",
        "Bells.",
        "Emberfall",
        "No.",
    ]
    storage.close()


JS_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.just(UNDEFINED),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    activated=st.lists(
        st.dictionaries(st.sampled_from(["uid", "world", "x"]), JS_SCALARS), max_size=6
    ),
    text=st.text(max_size=8),
    depth=st.lists(
        st.tuples(JS_SCALARS, JS_SCALARS, st.lists(st.text(max_size=3), max_size=2)), max_size=3
    ),
    outlets=st.dictionaries(st.text(max_size=3), st.lists(st.text(max_size=3), max_size=2)),
    examples=st.lists(st.tuples(st.integers(0, 1), st.text(max_size=4)), max_size=2),
    note=st.one_of(st.none(), st.text(max_size=4)),
)
def test_a_generate_response_encodes_the_result_as_to_json_does(
    activated: list[dict[str, Any]],
    text: str,
    depth: list[tuple[Any, Any, list[str]]],
    outlets: dict[str, list[str]],
    examples: list[tuple[int, str]],
    note: str | None,
) -> None:
    result = ScanResult(
        _activated=tuple(activated),
        before=text,
        after=text[::-1],
        depth=tuple(DepthGroup(depth=d, role=r, entries=tuple(e)) for d, r, e in depth),
        an_before=(text,),
        outlets={k: tuple(v) for k, v in outlets.items()},
        examples=tuple(ExampleEntry(position=p, content=c) for p, c in examples),
        an_prompt=note,
        scan_loops=len(activated),
        warnings=(text,) * (len(text) % 2),
    )
    fast, want = scan_json(result), result.to_json()
    assert json.dumps(fast) == json.dumps(want)  # the same keys in the same order
    assert scan_json(ScanResult(error="boom")) == {"error": "boom"}


def test_opening_a_session_prepares_its_books_once_for_every_session_of_the_worker(
    tmp_path: Path,
) -> None:
    svc = Service(open_storage(str(tmp_path / "prep.db")), limits=Limits())
    book = svc.import_upload("", example("emberfall.json").read_bytes(), name="e.json", trust=False)
    sids = [h.create_session(svc, "", {"books": [book.id], "seed": s})["id"] for s in (1, 2, 3)]
    assert svc.scan_caches.created == 1  # prepared by the first session's opening scan
    for sid in sids:
        h.generate(svc, "", sid, {"append": [_USER]})
    assert (svc.scan_caches.created, svc.sessions.misses) == (1, 0)
    assert [svc.storage.session("", sid).turn for sid in sids] == [1, 1, 1]  # dry: no turn


def test_a_worker_importing_a_book_for_requests_at_once_builds_its_plan_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worker b meets the book first in four requests at once (its cache is cold), then the
    sessions' turns alternate between the workers: b imports the book once, and so its
    sessions share one ``Book`` object and its scan cache one plan. Each request importing
    for itself gave each session its own copy, and the scan cache rebuilt the plan whenever
    the next scan came from a session holding another one."""
    a, b, _ = _two_workers(str(tmp_path / "cold.db"))
    book = a.storage.books("")[0]
    sids = [h.create_session(a, "", {"books": [book.id], "seed": s})["id"] for s in range(4)]
    builds: dict[int, int] = {}
    build = ScanCache._build

    def counted(cache: ScanCache, *args: Any) -> Any:
        builds[id(cache)] = builds.get(id(cache), 0) + 1
        return build(cache, *args)

    monkeypatch.setattr(ScanCache, "_build", counted)
    load = importers.load

    def slow_load(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.2)  # an import long enough for the other requests to miss it too
        return load(*args, **kwargs)

    monkeypatch.setattr(importers, "load", slow_load)
    with ThreadPoolExecutor(len(sids)) as pool:
        list(pool.map(lambda sid: h.generate(b, "", sid, {"append": [_USER]}), sids))
    for turn in range(6):
        for sid in sids:
            h.generate(a if turn % 2 else b, "", sid, {"append": [_USER]})
    # b's one plan (a built its own when the sessions were opened), never rebuilt
    assert list(builds.values()) == [1]
    assert (b.uploads.misses, b.scan_caches.created) == (1, 1)
    for svc in (a, b):
        svc.storage.close()
