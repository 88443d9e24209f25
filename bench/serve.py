"""``worldinfo serve`` under load: latency (p50/p99) and throughput. Run by hand, not in CI.

    .venv/bin/python bench/serve.py [--requests N] [--seconds S] [--sessions 1,10,50]
                                    [--workers 1,2] [--db postgresql://...] [--base DIR]

Starts the server on 127.0.0.1 (a free port; a temporary SQLite file unless ``--db`` names a
PostgreSQL database), imports two books -- the 5,000-entry book of
``golden/st-perf/large.json`` (with its settings and its 200-message chat as each session's
start) and the bundled example card ``archivist-card.json`` -- and for every worker count
and session count opens that many sessions, each a client that sends generations one after
another (append one user message, scan), until N requests are done or S seconds passed.
With ``--think-ms`` each session pauses about that long between its requests, as a chat does
while its user reads and the model writes (each pause drawn uniformly from 0.5 to 1.5 times
it, and each session starting at a random point of the first pause, from a fixed seed: ten
users do not press Enter in step); 0 sends back to back (the saturation case, where the
latency is mostly queueing). Every session is warmed first (each worker prepares the book once; that cost is reported
separately). Latencies are measured by the client, per request, in the same run; ``cpu(ms)`` is
the CPU time the server's worker processes used per request (from ``/proc``; Linux only),
which the machine's load does not inflate as it does latency; ``scan(ms)`` the mean CPU time
of ``Session.generate`` inside those same requests (the server's ``Server-Timing`` header),
and ``adds(ms)`` the difference: what the server spends per generate on top of the library,
on the same session states (HTTP, validation, the database, encoding), split into what ran
in the request's pool thread around the scan (``pool``: the session fetch, persistence, the
response object), the worker's main thread (``loop``: the event loop's HTTP, routing and
hand-offs, measured from ``/proc``, for the old code too) and the rest (``other``: the pool
threads outside a request's work, e.g. taking the next job and waking the loop).
Under each row, the slowest 1% of its requests (the p99 and above) are taken apart with their
own ``Server-Timing`` phases (see ``worldinfo.server.timing``): the time outside the app
(HTTP, the event loop, the kernel, the client), the queue (the body, the session's earlier
requests, a free thread), the wait for the scan slot, the database, the scan, the encoding
and the rest, and how long the collector ran meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
LARGE = ROOT / "golden/st-perf/large.json"
CARD = ROOT / "worldinfo/examples/archivist-card.json"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _start(
    db: str, workers: int, log: Path, *, threads: int | None, code: str | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """A server on a free port (``code``: a checkout to run instead, by ``PYTHONPATH``)."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = code
    port = _port()
    cmd = [sys.executable, "-m", "worldinfo", "serve", "--db", db, "--port", str(port)]
    cmd += ["--workers", str(workers), "--max-upload-mib", "32"]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    with log.open("ab") as out:
        # ``-m`` puts the working directory first on sys.path: run in the checkout served
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=code or ROOT
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/v1/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"server did not start (see {log})")


def _books(client: httpx.Client) -> dict[str, dict[str, Any]]:
    case = json.loads(LARGE.read_text(encoding="utf-8"))
    (name,) = case["books"]
    raw = json.dumps(case["books"][name]).encode("utf-8")
    big = client.post("/v1/imports", content=raw, params={"name": f"{name}.json"}, timeout=300)
    card = client.post("/v1/imports", content=CARD.read_bytes(), params={"name": CARD.name})
    uploads = {big.json()["id"]: raw, card.json()["id"]: CARD.read_bytes()}
    users = [m["mes"] for m in case["chat"] if m.get("is_user")]
    return {
        "large book": {
            "session": {
                "books": [big.json()["id"]],
                "settings": case["settings"],
                "chat": case["chat"],
                "chat_metadata": case["chat_metadata"],
                "max_context": case["max_context"],
            },
            "messages": users,
            "raw": uploads,
        },
        "small card": {
            "session": {"character": card.json()["id"], "settings": {"recursive": True}},
            "messages": ["The ferry docks at Emberfall.", "Is that the Ashen guild?"],
            "raw": uploads,
        },
    }


async def _client(
    c: httpx.AsyncClient,
    sid: str,
    texts: list[str],
    budget: list[int],
    pids: set[int],
    *,
    stop: float,
    think: float,
    rng: random.Random,
) -> list[tuple[float, dict[str, float]]]:
    out = []
    n = 0
    if think:
        await asyncio.sleep(rng.uniform(0, think))
    while budget[0] > 0 and time.monotonic() < stop:
        if n and think:
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        budget[0] -= 1
        msg = {"name": "User", "is_user": True, "mes": texts[n % len(texts)]}
        t0 = time.perf_counter()
        r = await c.post(f"/v1/sessions/{sid}/generate", json={"append": [msg]})
        latency = time.perf_counter() - t0
        if r.status_code != 200:
            raise SystemExit(f"generate failed: {r.status_code} {r.text[:300]}")
        pids.add(int(r.headers["x-worldinfo-worker"]))
        out.append((latency, server_timing(r.headers.get("server-timing", ""))))
        n += 1
    return out


def server_timing(header: str) -> dict[str, float]:
    """A ``Server-Timing`` header's durations, in milliseconds, by name."""
    out = {}
    for part in header.split(","):
        name, _, rest = part.strip().partition(";dur=")
        if rest:
            out[name] = float(rest.split(";")[0])
    return out


def _stat_cpu(path: str) -> float:
    fields = Path(path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_s(pids: set[int]) -> tuple[float, float]:
    """CPU seconds (user + system) the server's worker processes used so far, and of that
    their main threads' (the event loop's: HTTP, routing, the hand-offs to the pool)."""
    total = loop = 0.0
    for pid in pids:
        total += _stat_cpu(f"/proc/{pid}/stat")
        loop += _stat_cpu(f"/proc/{pid}/task/{pid}/stat")
    return total, loop


async def _run(
    url: str, book: dict[str, Any], sessions: int, think_ms: int, args: argparse.Namespace
) -> dict[str, Any]:
    # idle connections are dropped before the server's keep-alive timeout could close one
    # just as it is reused
    limits = httpx.Limits(max_connections=sessions + 5, keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as c:
        sids = []
        for _ in range(sessions):
            r = await c.post("/v1/sessions", json=book["session"])
            sids.append(r.json()["id"])
        t0 = time.perf_counter()
        warm = []
        for _ in range(2):  # concurrently, so every thread's scan cache gets warm too
            warm += await asyncio.gather(
                *(c.post(f"/v1/sessions/{s}/generate", json={}) for s in sids)
            )
        warm_s = time.perf_counter() - t0
        assert all(r.status_code == 200 for r in warm), warm[0].text
        pids = {int(r.headers["x-worldinfo-worker"]) for r in warm}
        budget = [args.requests]
        stop = time.monotonic() + args.seconds
        cpu0 = _cpu_s(pids)
        t0 = time.perf_counter()
        think = think_ms / 1000
        runs = await asyncio.gather(
            *(
                _client(c, s, book["messages"], budget, pids, stop=stop, think=think,
                        rng=random.Random(i))
                for i, s in enumerate(sids)
            )
        )  # fmt: skip
        elapsed = time.perf_counter() - t0
        cpu1 = _cpu_s(pids)
        cpu, loop = cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]
    done = sorted((x for run in runs for x in run), key=lambda x: x[0])
    lat = [x[0] for x in done]
    spent = [x[1] for x in done]
    scanned = [(t["scan-cpu"], t["work-cpu"]) for t in spent if "scan-cpu" in t]
    scanned = scanned if len(scanned) == len(lat) else []  # the starting commit: no header
    return {
        "sessions": sessions,
        "think_ms": think_ms,
        "requests": len(lat),
        "p50_ms": statistics.median(lat) * 1000,
        "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
        "req_s": len(lat) / elapsed,
        "server_cpu_ms": cpu / len(lat) * 1000,
        "loop_cpu_ms": loop / len(lat) * 1000,
        "scan_cpu_ms": statistics.fmean(x[0] for x in scanned) if scanned else None,
        "work_cpu_ms": statistics.fmean(x[1] for x in scanned) if scanned else None,
        "warm_s": warm_s,
        "p99_phases": _slowest(done),
    }


SLOW_PHASES = ("queue", "slot", "db", "scan", "scan-cpu", "encode", "gc")


def _slowest(done: list[tuple[float, dict[str, float]]]) -> dict[str, float] | None:
    """The mean phases (ms) of the slowest 1% of requests (at least one), from their
    ``Server-Timing``: ``client`` is the latency the client saw, ``outside`` the part of it
    before routing and after the response object (HTTP, the event loop, the kernel, the
    client), ``rest`` the server's time in none of the named phases."""
    slow = done[min(len(done) - 1, int(len(done) * 0.99)) :]
    if not slow or "queue" not in slow[0][1]:
        return None  # the starting commit's header has no phases
    out = {"n": float(len(slow)), "client": statistics.fmean(x[0] for x in slow) * 1000}
    for name in ("total", "work", *SLOW_PHASES):
        out[name] = statistics.fmean(t.get(name, 0.0) for _, t in slow)
    named = sum(out[k] for k in ("queue", "slot", "db", "scan", "encode"))
    out["rest"] = out["total"] - named
    out["outside"] = out["client"] - out["total"]
    return out


def _slow_line(r: dict[str, Any]) -> str:
    p = r.get("p99_phases")
    if not p or "queue" not in p:
        return ""
    return (
        f"      p99 requests ({p['n']:.0f}): {p['client']:.1f} ms = outside the app "
        f"{p['outside']:.1f} + queue {p['queue']:.1f} + slot {p['slot']:.1f} + db {p['db']:.1f}"
        f" + scan {p['scan']:.1f} (cpu {p['scan-cpu']:.1f}) + encode {p['encode']:.2f}"
        f" + rest {p['rest']:.1f}; gc {p['gc']:.1f}"
    )


def _row(r: dict[str, Any]) -> str:
    scan, work, cpu, loop = r["scan_cpu_ms"], r["work_cpu_ms"], r["server_cpu_ms"], r["loop_cpu_ms"]
    adds = (
        f"       —        —        — {loop:>8.2f}        —"
        if scan is None
        else f"{scan:>8.2f} {cpu - scan:>8.2f} {work - scan:>8.2f} {loop:>8.2f}"
        f" {cpu - work - loop:>8.2f}"
    )
    return (
        f"{r['sessions']:>9} {r['think_ms']:>9} {r['requests']:>8} {r['p50_ms']:>7.1f}"
        f" {r['p99_ms']:>8.1f} {r['req_s']:>8.1f} {r['server_cpu_ms']:>8.2f} {adds}"
        f" {r['warm_s']:>8.1f}"
    )


def _library_p50(book: dict[str, Any], n: int) -> tuple[float, float]:
    """The same generations through the library in this process (no HTTP, no database)."""
    from worldinfo import importers
    from worldinfo.session import Session
    from worldinfo.types import Message, Persona, Settings

    cfg = book["session"]
    books, names, character = {}, [], None
    for up_id in [*cfg.get("books", []), cfg.get("character")]:
        if up_id is None:
            continue
        raw = book["raw"][up_id]
        imported = importers.load(raw, name="x.json", trust=False)
        for b in imported.books:
            books[b.name] = b
            if up_id != cfg.get("character"):
                names.append(b.name)
        character = imported.character or character
    session = Session(
        books=books,
        settings=Settings.from_json(cfg.get("settings", {})),
        global_books=names,
        character=character,
        persona=Persona(),
        chat=[Message(**m) for m in cfg.get("chat", [])],
        chat_metadata=cfg.get("chat_metadata"),
        max_context=cfg.get("max_context", 8192),
    )
    session.generate("normal")
    times, cpu = [], []
    for i in range(n):
        msg = Message(name="User", is_user=True, mes=book["messages"][i % len(book["messages"])])
        t0, c0 = time.perf_counter(), time.process_time()
        session.generate("normal", append=[msg])
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(times) * 1000, statistics.median(cpu) * 1000


def _library_only(n: int) -> None:
    """Print the library's figures for both books as JSON (``--base`` runs this on the old
    code in a child process)."""
    case = json.loads(LARGE.read_text(encoding="utf-8"))
    (name,) = case["books"]
    raw = json.dumps(case["books"][name]).encode("utf-8")
    uploads = {"big": raw, "card": CARD.read_bytes()}
    books = {
        "large book": {
            "session": {
                "books": ["big"],
                "settings": case["settings"],
                "chat": case["chat"],
                "chat_metadata": case["chat_metadata"],
                "max_context": case["max_context"],
            },
            "messages": [m["mes"] for m in case["chat"] if m.get("is_user")],
            "raw": uploads,
        },
        "small card": {
            "session": {"character": "card", "settings": {"recursive": True}},
            "messages": ["The ferry docks at Emberfall.", "Is that the Ashen guild?"],
            "raw": uploads,
        },
    }
    print(json.dumps({label: _library_p50(book, n) for label, book in books.items()}))


def _library(code: str | None, n: int) -> dict[str, list[float]]:
    """The library's (wall, CPU) medians per book, for this checkout or ``code``'s."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = code
    cmd = [sys.executable, __file__, "--library-only", str(n)]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    figures: dict[str, list[float]] = json.loads(out.splitlines()[-1])
    return figures


HEADER = (
    " sessions think(ms) requests p50(ms)  p99(ms)    req/s  cpu(ms)"
    " scan(ms) adds(ms)  (pool     loop    other)  warm(s)"
)


def main() -> None:
    """Run every configuration and print one table per worker count and book."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", type=int, default=300, help="requests per configuration")
    p.add_argument("--seconds", type=float, default=30.0, help="time bound per configuration")
    p.add_argument("--sessions", default="1,10,50")
    p.add_argument("--workers", default="1,2")
    p.add_argument(
        "--think-ms",
        default="0,1000",
        help="pause of each session between its requests (0: back to back, the saturation "
        "case; a chat's user waits for the model between turns)",
    )
    p.add_argument("--db", default=None, help="a PostgreSQL DSN (default: a temporary SQLite file)")
    p.add_argument("--threads", type=int, default=None, help="serve --threads (default: its own)")
    p.add_argument(
        "--base",
        default=None,
        help="another checkout (the starting commit) to measure side by side: each "
        "configuration runs on it right after this one, against a server of its own",
    )
    p.add_argument("--json", action="store_true", help="also print every row as one JSON line")
    p.add_argument("--library-only", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.library_only:
        _library_only(args.library_only)
        return
    counts = [int(x) for x in args.sessions.split(",")]
    codes: list[tuple[str, str | None]] = [("new", None)]
    if args.base:
        codes.append(("old", str(Path(args.base).resolve())))
    print(f"cpus: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}")
    for tag, code in codes:  # the baseline, measured in the same run
        for label, (wall, cpu) in _library(code, 50).items():
            print(f"{label}: the library ({tag} code) in a process of its own, one generate"
                  f" after another, p50 {wall:.1f} ms (CPU {cpu:.2f} ms)")  # fmt: skip
            if args.json:
                print(json.dumps({"book": label, "code": tag, "library_p50_ms": wall,
                                  "library_cpu_ms": cpu}))  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (int(x) for x in args.workers.split(",")):
            servers = {}
            try:
                for tag, code in codes:
                    db = args.db or str(Path(tmp) / f"bench-{tag}-{workers}.db")
                    log = Path(tmp) / f"serve-{tag}.log"
                    proc, url = _start(db, workers, log, threads=args.threads, code=code)
                    with httpx.Client(base_url=url, timeout=300) as client:
                        servers[tag] = (proc, url, _books(client))
                for label in servers["new"][2]:
                    kind = "PostgreSQL" if args.db else "SQLite"
                    print(f"\n{label}, {workers} worker(s), {kind}")
                    print(("code " if args.base else "") + HEADER)
                    for think in (int(x) for x in args.think_ms.split(",")):
                        for n in counts:
                            for tag, (_, url, books) in servers.items():
                                row = asyncio.run(_run(url, books[label], n, think, args))
                                print(("old  " if tag == "old" else "new  " if args.base else "")
                                      + _row(row), flush=True)  # fmt: skip
                                if _slow_line(row):
                                    print(_slow_line(row), flush=True)
                                if args.json:
                                    print(json.dumps({"book": label, "workers": workers,
                                                      "code": tag, **row}))  # fmt: skip
            finally:
                for proc, _, _ in servers.values():
                    proc.terminate()
                    proc.wait(timeout=30)


if __name__ == "__main__":
    main()
