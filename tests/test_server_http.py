"""``worldinfo serve`` over real HTTP (httpx) against a real server process on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")

from serverkit import ServerProcess

from worldinfo import importers
from worldinfo._js import mulberry32
from worldinfo.examples import path as example
from worldinfo.server.sessions import turn_seed
from worldinfo.server.wire import openapi
from worldinfo.session import CountingRng, Session
from worldinfo.types import Message, Settings

CARD = example("archivist-card.json")
SETTINGS = {"recursive": True, "depth": 4}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    tmp = tmp_path_factory.mktemp("serve")
    with ServerProcess(str(tmp / "serve.db"), tmp_path=tmp) as s:
        yield s


@pytest.fixture
def client(server: ServerProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def _upload(client: httpx.Client, path: Path, **params: str) -> dict[str, Any]:
    r = client.post("/v1/imports", content=path.read_bytes(), params={"name": path.name, **params})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def _user(text: str) -> dict[str, Any]:
    return {"name": "User", "is_user": True, "mes": text}


def _reply(text: str) -> dict[str, Any]:
    return {"name": "Archivist", "is_user": False, "mes": text}


STEPS: list[dict[str, Any]] = [
    {"append": [_user("The ferry docks at Emberfall. Who sells maps?")]},
    {"append": [_reply("The guild hall."), _user("Is that the Ashen guild?")]},
    {"type": "swipe"},
    {"type": "regenerate"},
    {"type": "continue"},
    {"type": "quiet", "quiet_prompt": "Summarise the dragons of the harbour."},
    {"append": [_user("Tell me of the dragons.")], "dry_run": True},
    {"append": [_reply("Hush."), _user("The squall is coming, the bells ring.")], "trace": True},
]


def _library_session(seed: int) -> Session:
    imported = importers.load(CARD, trust=False)
    assert imported.character is not None
    return Session(
        books={b.name: b for b in imported.books},
        settings=Settings.from_json(SETTINGS),
        character=imported.character,
    )


def test_a_chat_through_the_server_equals_the_library(client: httpx.Client) -> None:
    card = _upload(client, CARD)
    assert (card["format"], card["character"], card["trust"]) == ("card-v2", "Archivist", False)
    r = client.post("/v1/sessions", json={"character": card["id"], "settings": SETTINGS})
    assert r.status_code == 201, r.text
    session = r.json()
    seed = session["config"]["seed"]
    lib = _library_session(seed)
    turn = 0
    for step in STEPS:
        got = client.post(f"/v1/sessions/{session['id']}/generate", json=step)
        assert got.status_code == 200, got.text
        lib.rng = CountingRng(mulberry32(turn_seed(seed, turn)))
        want = lib.generate(
            step.get("type", "normal"),
            append=[Message(**m) for m in step.get("append", [])],
            dry_run=step.get("dry_run", False),
            quiet_prompt=step.get("quiet_prompt", ""),
            trace=step.get("trace", False),
        )
        body = got.json()
        assert {k: body[k] for k in want.to_json()} == want.to_json(), step
        if step.get("dry_run"):
            lib.chat = lib.chat[: -len(step["append"])]  # the server stores nothing for a dry run
        else:
            turn += 1
            assert body["chat_metadata"] == json.loads(json.dumps(lib.chat_metadata))
        assert body["turn"] == turn + (1 if step.get("dry_run") else 0)
    stored = client.get(f"/v1/sessions/{session['id']}").json()
    assert stored["turn"] == turn
    assert [m["mes"] for m in stored["chat"]] == [m.mes for m in lib.chat]
    assert "trace" in body and body["trace"]["activated"] == body["activated"]


def test_explain_says_why_and_stores_nothing(client: httpx.Client) -> None:
    book = _upload(client, example("emberfall.json"))
    sid = client.post("/v1/sessions", json={"books": [book["id"]], "settings": SETTINGS}).json()
    r = client.post(
        f"/v1/sessions/{sid['id']}/explain", json={"append": [_user("Emberfall at last.")]}
    )
    assert r.status_code == 200, r.text
    out = r.json()
    assert {"world": "emberfall", "uid": 0} in out["activated"]
    assert "Verdicts:" in out["text"] and "a key matched" in out["text"]
    after = client.get(f"/v1/sessions/{sid['id']}").json()
    assert (after["chat"], after["turn"]) == ([], 0)


def test_chat_metadata_can_be_read_replaced_and_reset(client: httpx.Client) -> None:
    book = _upload(client, example("emberfall.json"))
    sid = client.post("/v1/sessions", json={"books": [book["id"]]}).json()["id"]
    md = {"note_prompt": "x", "timedWorldInfo": {"sticky": {}, "cooldown": {}}}
    assert client.put(f"/v1/sessions/{sid}/metadata", json=md).json() == md
    assert client.get(f"/v1/sessions/{sid}/metadata").json() == md
    r = client.post(f"/v1/sessions/{sid}/metadata/reset", json={})
    assert r.json() == {"note_prompt": "x"}
    assert client.get(f"/v1/sessions/{sid}/metadata").json() == {"note_prompt": "x"}


def test_messages_append_and_replace_the_last(client: httpx.Client) -> None:
    book = _upload(client, example("emberfall.json"))
    sid = client.post("/v1/sessions", json={"books": [book["id"]]}).json()["id"]
    url = f"/v1/sessions/{sid}/messages"
    assert client.post(url, json={"messages": [_user("a"), _reply("b")]}).json()["chat_length"] == 2
    client.post(url, json={"messages": [_reply("b2")], "replace_last": True})
    chat = client.get(f"/v1/sessions/{sid}").json()["chat"]
    assert [m["mes"] for m in chat] == ["a", "b2"]


def test_uploads_are_untrusted_by_default(client: httpx.Client, tmp_path: Path) -> None:
    world = {"entries": {"0": {"uid": 0, "key": ["/dr.gon/i"], "content": "C", "constant": True}}}
    f = tmp_path / "hostile.json"
    f.write_text(json.dumps(world), encoding="utf-8")
    untrusted, trusted = _upload(client, f), _upload(client, f, trust="true")
    for up, fired in ((untrusted, []), (trusted, [{"uid": 0, "world": "hostile"}])):
        sid = client.post("/v1/sessions", json={"books": [up["id"]]}).json()["id"]
        r = client.post(f"/v1/sessions/{sid}/generate", json={"append": [_user("a dragon")]})
        assert r.json()["activated"] == fired


def test_errors_are_json_with_the_typed_message_and_json_paths(
    client: httpx.Client, tmp_path: Path
) -> None:
    bad = b'{"entries": {"0": 5, "1": {"uid": 1}, "2": []}}'
    r = client.post("/v1/imports", content=bad, params={"name": "../../etc/bad.json"})
    assert r.status_code == 422
    err = r.json()["error"]
    with pytest.raises(importers.LorebookImportError) as want:
        importers.load(bad, name="bad.json", trust=False)
    assert (err["type"], err["message"], err["file"]) == (
        "LorebookImportError",
        str(want.value),
        "bad.json",
    )
    assert [p["json_path"] for p in err["problems"]] == [p.json_path for p in want.value.problems]
    r = client.post("/v1/sessions", json={"books": ["bk_x"], "seed": -1, "nope": 1})
    assert r.status_code == 400
    paths = [p["json_path"] for p in r.json()["error"]["problems"]]
    assert paths == ["$", "$.seed"]
    r = client.post("/v1/sessions", content=b"{not json")
    assert (r.status_code, r.json()["error"]["problems"][0]["json_path"]) == (400, "$")
    r = client.post("/v1/sessions", content=b"[" * 200 + b"]" * 200)  # the importers' bounds
    assert (r.status_code, r.json()["error"]["problems"][0]["json_path"]) == (400, "$")
    assert "nest" in r.json()["error"]["message"]
    r = client.post("/v1/sessions", json={"books": ["bk_missing"]})
    assert (r.status_code, r.json()["error"]["type"]) == (404, "NotFound")
    assert client.get("/v1/sessions/se_nothing").status_code == 404


def test_the_shipped_openapi_document_is_what_the_server_serves(client: httpx.Client) -> None:
    shipped = json.loads(
        (Path(__file__).parents[1] / "worldinfo/server/openapi.json").read_text("utf-8")
    )
    assert client.get("/openapi.json").json() == shipped == openapi()
    from worldinfo.server.app import Server as AppServer
    from worldinfo.server.app import ServerConfig, routes

    server = AppServer(ServerConfig(database=":memory:"))
    served = {(r.path, m.lower()) for r in routes(server) for m in (r.methods or ()) - {"HEAD"}}
    documented = {(p, m) for p, ops in shipped["paths"].items() for m in ops}
    assert served == documented
    server.service.storage.close()
    server.pool.shutdown()


def test_tokens_scope_every_id_to_its_owner(tmp_path: Path) -> None:
    with ServerProcess(str(tmp_path / "t.db"), tmp_path=tmp_path, tokens=["alpha", "beta"]) as s:
        a = httpx.Client(base_url=s.url, headers={"Authorization": "Bearer alpha"})
        b = httpx.Client(base_url=s.url, headers={"Authorization": "Bearer beta"})
        anon = httpx.Client(base_url=s.url)
        assert anon.get("/v1/health").status_code == 200
        r = anon.post("/v1/imports", content=CARD.read_bytes())
        assert (r.status_code, r.json()["error"]["type"]) == (401, "Unauthorized")
        wrong = httpx.Client(base_url=s.url, headers={"Authorization": "Bearer gamma"})
        assert wrong.get("/v1/imports").status_code == 401
        card = a.post("/v1/imports", content=CARD.read_bytes()).json()
        assert b.get("/v1/imports").json() == {"imports": []}
        assert b.post("/v1/sessions", json={"character": card["id"]}).status_code == 404
        sid = a.post("/v1/sessions", json={"character": card["id"]}).json()["id"]
        for path in ("", "/metadata"):
            assert b.get(f"/v1/sessions/{sid}{path}").status_code == 404
            assert a.get(f"/v1/sessions/{sid}{path}").status_code == 200
        assert b.post(f"/v1/sessions/{sid}/generate", json={}).status_code == 404
        assert b.delete(f"/v1/sessions/{sid}").status_code == 404
        for c in (a, b, anon, wrong):
            c.close()


def test_bodies_and_uploads_past_the_limits_are_refused(tmp_path: Path) -> None:
    extra = ["--max-body-mib", "0.001", "--max-upload-mib", "0.001"]
    with ServerProcess(str(tmp_path / "l.db"), tmp_path=tmp_path, extra=extra) as s:
        big = b" " * 2000
        r = httpx.post(s.url + "/v1/imports", content=big)
        assert (r.status_code, r.json()["error"]["type"]) == (413, "PayloadTooLarge")

        def chunks() -> Iterator[bytes]:
            yield from [b"[" * 500, b"[" * 600]  # no Content-Length: counted as it streams

        r = httpx.post(s.url + "/v1/sessions", content=chunks())
        assert r.status_code == 413


def test_the_cli_refuses_a_public_address_without_a_token(tmp_path: Path) -> None:
    from worldinfo.cli import main

    assert main(["serve", "--db", str(tmp_path / "x.db"), "--host", "0.0.0.0"]) == 2
    assert not (tmp_path / "x.db").exists()
