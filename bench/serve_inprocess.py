"""What the server adds to a generate, in one process: the library alone vs the app. By hand.

    .venv/bin/python bench/serve_inprocess.py [--turns N] [--base DIR] [--json]

The same turns (each appends one user message to the large book's 200-message chat, a "next
turn") run through a library ``Session`` and through the app (``create_app`` on a temporary
SQLite file, called with httpx's ASGI transport: no sockets, no uvicorn), alternating turn by
turn so both see the same machine. For the app, every request's ``Server-Timing`` phases
(``worldinfo.server.timing``) say where its time went; ``work-cpu - scan-cpu`` is the CPU
the server spent around ``Session.generate`` in the request's pool thread. ``--base`` runs
the same script on another checkout (the starting commit) right after, in a child process.
Medians over the turns; CPU is the thread's (``time.thread_time``) or the process's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from serve import server_timing  # bench/ is the script's directory

ROOT = Path(__file__).resolve().parents[1]
LARGE = ROOT / "golden/st-perf/large.json"
PHASES = ("total", "queue", "work", "work-cpu", "slot", "db", "scan", "scan-cpu", "encode")


async def _measure(turns: int) -> dict[str, Any]:
    import httpx

    from worldinfo import importers
    from worldinfo.server.app import ServerConfig, create_app
    from worldinfo.session import Session
    from worldinfo.types import Message, Settings

    case = json.loads(LARGE.read_text(encoding="utf-8"))
    (name,) = case["books"]
    raw = json.dumps(case["books"][name]).encode("utf-8")
    users = [m["mes"] for m in case["chat"] if m.get("is_user")]
    books = {b.name: b for b in importers.load(raw, name="large.json", trust=False).books}
    library = Session(
        books=books, settings=Settings.from_json(case["settings"]), global_books=list(books),
        chat=[Message(**m) for m in case["chat"]], chat_metadata=case["chat_metadata"],
        max_context=case["max_context"],
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(ServerConfig(database=str(Path(tmp) / "b.db")))
        server = app.state.server
        if hasattr(server, "activate"):
            server.activate()
        else:  # the starting commit
            server.service.heap.activate()
        transport = httpx.ASGITransport(app=app)
        lib: list[tuple[float, float]] = []
        via: list[tuple[float, float, dict[str, float]]] = []
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as c:
            up = (await c.post("/v1/imports", content=raw, params={"name": "large.json"})).json()
            body = {"books": [up["id"]], "settings": case["settings"], "chat": case["chat"],
                    "chat_metadata": case["chat_metadata"], "max_context": case["max_context"]}  # fmt: skip
            sid = (await c.post("/v1/sessions", json=body)).json()["id"]
            for i in range(3 + turns):
                msg = {"name": "User", "is_user": True, "mes": users[i % len(users)]}
                t0, c0 = time.perf_counter(), time.thread_time()
                library.generate("normal", append=[Message(**msg)])
                lib.append((time.perf_counter() - t0, time.thread_time() - c0))
                t0, c0 = time.perf_counter(), time.process_time()
                r = await c.post(f"/v1/sessions/{sid}/generate", json={"append": [msg]})
                assert r.status_code == 200, r.text[:300]
                spent = server_timing(r.headers.get("server-timing", ""))
                via.append((time.perf_counter() - t0, time.process_time() - c0, spent))
        server.pool.shutdown()
        server.service.storage.close()
    lib, via = lib[3:], via[3:]  # the first turns warm both up
    out: dict[str, Any] = {
        "turns": turns,
        "library_ms": statistics.median(x[0] for x in lib) * 1000,
        "library_cpu_ms": statistics.median(x[1] for x in lib) * 1000,
        "app_ms": statistics.median(x[0] for x in via) * 1000,
        "app_process_cpu_ms": statistics.median(x[1] for x in via) * 1000,
    }
    for phase in PHASES:
        values = [x[2][phase] for x in via if phase in x[2]]
        if len(values) == len(via):
            out[phase] = statistics.median(values)
    if "work-cpu" in out and "scan-cpu" in out:
        around = [x[2]["work-cpu"] - x[2]["scan-cpu"] for x in via]
        out["around_scan_cpu_ms"] = statistics.median(around)
    return out


def _show(tag: str, r: dict[str, Any]) -> None:
    print(f"{tag}: library {r['library_ms']:.2f} ms (CPU {r['library_cpu_ms']:.2f});"
          f" through the app {r['app_ms']:.2f} ms (process CPU, client included,"
          f" {r['app_process_cpu_ms']:.2f})")  # fmt: skip
    phases = ", ".join(f"{p} {r[p]:.2f}" for p in PHASES if p in r)
    print(f"    Server-Timing medians (ms): {phases}")
    if "around_scan_cpu_ms" in r:
        print(f"    the pool thread's CPU around the scan: {r['around_scan_cpu_ms']:.2f} ms")


def main() -> None:
    """Measure this checkout (and ``--base``'s) and print the medians."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--turns", type=int, default=100)
    p.add_argument("--base", default=None, help="another checkout to measure right after")
    p.add_argument("--json", action="store_true", help="print the figures as JSON lines too")
    p.add_argument("--raw", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    result = asyncio.run(_measure(args.turns))
    if args.raw:
        print(json.dumps(result))
        return
    print(f"cpus: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    _show("new", result)
    if args.json:
        print(json.dumps({"code": "new", **result}))
    if args.base:
        env = {**os.environ, "PYTHONPATH": str(Path(args.base).resolve())}
        cmd = [sys.executable, str(Path(__file__).resolve()), "--raw", "--turns", str(args.turns)]
        done = subprocess.run(cmd, env=env, cwd=tempfile.gettempdir(), check=True,
                              capture_output=True, text=True)  # fmt: skip
        old = json.loads(done.stdout.splitlines()[-1])
        _show("old", old)
        if args.json:
            print(json.dumps({"code": "old", **old}))
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
