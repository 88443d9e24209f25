"""The turn table of ``bench/scan.py`` (issue 13, point 7): cold / first / unseen / steady /
next-turn on ``golden/st-perf/large.json``, this checkout beside another one.

- cold: a fresh process, from the book's bytes to the first ``ScanResult`` (interpreter
  start and imports excluded), split into loading (``parse_json`` + ``Book.from_json``)
  and the first scan; stdlib ``json.loads`` of the same bytes beside it, run first in half
  of the processes and last in the others (see ``COLD``);
- first: the first ``Session.generate`` once the ``Book`` is loaded (plan build, unseen text);
- unseen / steady: a prepared book, with the per-line key cache dropped / kept;
- next turn: a variant of the case where every 25th entry is sticky and every 40th has a
  cooldown; a fresh cache scans turn 1 (sticky entries fire), then turn 2 is timed (the
  first scan that reads timed-effect records) and turn 3. Both are checked against the
  straightforward path (``scan_cache = None``).

Figures are medians of CPU time (``time.process_time``) with wall time beside them.
``--base PATH`` runs the same measurements on the code at PATH (``PYTHONPATH``) in a
subprocess and prints both columns and their ratio.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import worldinfo
from worldinfo._js import canonical, parse_json
from worldinfo.conformance.st import first_difference, message, observed, session_for
from worldinfo.engine.fast.cache import ScanCache

Case = Mapping[str, Any]
# A fresh process: bytes -> first ScanResult (``load`` + ``first`` = ``total``), and stdlib
# ``json.loads`` of the same bytes either before it ("json first": its value dropped at once,
# so the worldinfo steps then reuse the memory it grew) or after it ("json last": everything
# dropped first). A big parse that runs first in a process pays for growing the heap.
COLD = """
import json, sys, time
from pathlib import Path
from worldinfo._js import parse_json
from worldinfo.conformance.st import message, session_for
from worldinfo.types import Book
data = Path(sys.argv[1]).read_bytes()
name = sys.argv[2]
json_first = sys.argv[3] == "json first"
def stdlib():
    c = time.process_time()
    json.loads(data)
    return time.process_time() - c
before = stdlib() if json_first else None
t0, c0 = time.perf_counter(), time.process_time()
case = parse_json(data)
try:  # parse_json's objects are in JavaScript order already: no copy (importers.load's path)
    book = Book.from_json(name, case["books"][name], js_ordered=True)
except TypeError:  # a checkout from before js_ordered
    book = Book.from_json(name, case["books"][name])
t1, c1 = time.perf_counter(), time.process_time()
case["books"] = {}
session = session_for(case)
session.books = {name: book}
step = case["steps"][0]
result = session.generate(step.get("type", "normal"), append=[message(m) for m in step.get("append") or ()])
t2, c2 = time.perf_counter(), time.process_time()
activated = len(result.activated)
del case, book, session, step, result
after = before if json_first else stdlib()
print(json.dumps({"load": c1 - c0, "first": c2 - c1, "total": c2 - c0, "wall": t2 - t0,
                  "json_loads": after, "activated": activated}))
"""
ORDERS = ("json last", "json first")


def _timed(fn: Callable[[], Any], out: list[tuple[float, float]]) -> Any:
    """Call ``fn``; append its (CPU, wall) seconds to ``out``; return its result."""
    w, c = time.perf_counter(), time.process_time()
    result = fn()
    out.append((time.process_time() - c, time.perf_counter() - w))
    return result


def _median(pairs: list[tuple[float, float]]) -> dict[str, float]:
    return {
        "cpu_ms": round(statistics.median(p[0] for p in pairs) * 1000, 2),
        "wall_ms": round(statistics.median(p[1] for p in pairs) * 1000, 2),
    }


def cold(path: Path, *, runs: int) -> dict[str, float]:
    """Medians over ``runs`` fresh processes in each order of ``ORDERS``, alternating (ms of
    CPU time; ``total_wall_ms`` wall). ``total`` / ``load`` / ``first`` come from the "json
    last" runs (nothing ran before them in the process: the real cold path); ``json_loads``
    from the "json first" runs likewise (the first big parse of its process), and
    ``json_loads_after`` / ``load_after_json`` are the same steps when they ran second.
    ``load_ratio_*`` are loading over ``json.loads`` in each order and their geometric mean.
    """
    name = next(iter(parse_json(path.read_bytes())["books"]))
    got: dict[str, list[dict[str, float]]] = {o: [] for o in ORDERS}
    checkout = Path(worldinfo.__file__).resolve().parent.parent  # ``-c`` puts the cwd first
    for i in range(2 * runs):
        order = ORDERS[i % 2]
        done = subprocess.run(
            [sys.executable, "-c", COLD, str(path.resolve()), name, order],
            capture_output=True,
            text=True,
            check=True,
            cwd=checkout,
        )
        got[order].append(json.loads(done.stdout))

    def med(order: str, key: str) -> float:
        return round(statistics.median(g[key] for g in got[order]) * 1000, 1)

    out = {k: med("json last", k) for k in ("total", "load", "first")}
    out = {f"{k}_ms": v for k, v in out.items()}
    out["total_wall_ms"] = med("json last", "wall")
    out["json_loads_ms"] = med("json first", "json_loads")
    out["json_loads_after_ms"] = med("json last", "json_loads")
    out["load_after_json_ms"] = med("json first", "load")
    first = out["load_after_json_ms"] / out["json_loads_ms"]
    last = out["load_ms"] / out["json_loads_after_ms"]
    out["load_ratio_json_first"] = round(first, 2)
    out["load_ratio_json_last"] = round(last, 2)
    out["load_ratio"] = round(math.sqrt(first * last), 2)
    return out


def _session(case: Case, books: Mapping[str, Any]) -> Any:
    """A session for ``case`` over already loaded ``books``."""
    session = session_for({**case, "books": {}})
    session.books = dict(books)
    return session


def _step(session: Any, step: Case) -> Any:
    append = [message(m) for m in step.get("append") or ()]
    return session.generate(step.get("type", "normal"), append=append)


def warm(case: Case, *, repeats: int) -> dict[str, Any]:
    """first / unseen / steady for the case's first step, checked against its expectation."""
    books = session_for(case).books
    step = case["steps"][0]
    first: list[tuple[float, float]] = []
    unseen: list[tuple[float, float]] = []
    steady: list[tuple[float, float]] = []
    ok = True
    cache = ScanCache()
    for _ in range(repeats):
        session = _session(case, books)
        session.scan_cache = cache = ScanCache()
        result = _timed(lambda s=session: _step(s, step), first)
        expect = step.get("expect")
        ok = ok and (expect is None or not first_difference(expect, observed(session, result)))
    for kind, out in (("unseen", unseen), ("steady", steady)):
        for _ in range(repeats):
            session = _session(case, books)
            session.scan_cache = cache
            if kind == "unseen":
                cache.forget_lines()
            _timed(lambda s=session: _step(s, step), out)
    return {"first": _median(first), "unseen": _median(unseen), "steady": _median(steady), "ok": ok}


def timed_variant(case: Case) -> dict[str, Any]:
    """``case`` with sticky and cooldown entries and three turns."""
    variant = json.loads(json.dumps(case))
    entries = next(iter(variant["books"].values()))["entries"]
    for i, entry in enumerate(entries.values() if isinstance(entries, dict) else entries):
        if i % 25 == 0:
            entry["sticky"] = 2
        if i % 40 == 0:
            entry["cooldown"] = 3
    chat = variant["chat"]
    variant["steps"] = [
        {"type": "normal"},
        {"type": "normal", "append": [chat[-1]]},
        {"type": "normal", "append": [chat[-2]]},
    ]
    for step in variant["steps"]:
        step.pop("expect", None)
    return variant


def next_turn(case: Case, *, repeats: int) -> dict[str, Any]:
    """Turns 2 and 3 of ``timed_variant`` on a fresh cache, checked against the reference."""
    variant = timed_variant(case)
    books = session_for(variant).books
    reference = _session(variant, books)
    reference.scan_cache = None
    expected = [canonical(observed(reference, _step(reference, s))) for s in variant["steps"]]
    second: list[tuple[float, float]] = []
    third: list[tuple[float, float]] = []
    ok = True
    for _ in range(repeats):
        session = _session(variant, books)
        session.scan_cache = ScanCache()
        results = [canonical(observed(session, _step(session, variant["steps"][0])))]
        for out, step in ((second, variant["steps"][1]), (third, variant["steps"][2])):
            result = _timed(lambda s=session, st=step: _step(s, st), out)
            results.append(canonical(observed(session, result)))
        ok = ok and results == expected
    records = expected[1].get("chat_metadata", {}).get("timedWorldInfo", {})
    return {
        "next_turn": _median(second),
        "turn_after": _median(third),
        "records": sum(len(v) for v in records.values() if isinstance(v, dict)),
        "ok": ok,
    }


def table(path: Path, *, repeats: int, runs: int) -> dict[str, Any]:
    """Every figure of the turn table for this process's code."""
    case = parse_json(path.read_bytes())
    out: dict[str, Any] = {"code": str(Path(worldinfo.__file__).resolve().parent)}
    out["cold"] = cold(path, runs=runs)
    out.update(warm(case, repeats=repeats))
    nxt = next_turn(case, repeats=max(5, repeats))  # a turn swings by half on a loaded machine
    out["ok"] = out["ok"] and nxt.pop("ok")
    out.update(nxt)
    return out


def on_base(base: Path, path: Path, *, repeats: int, runs: int) -> dict[str, Any]:
    """``table`` run by the code at ``base`` (``PYTHONPATH``), in a subprocess."""
    env = {**os.environ, "PYTHONPATH": str(base)}
    code = (
        "import json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]);"
        "import scan_turns;"
        "print(json.dumps(scan_turns.table(Path(sys.argv[2]), repeats=int(sys.argv[3]),"
        " runs=int(sys.argv[4]))))"
    )
    here = str(Path(__file__).resolve().parent)
    args = [sys.executable, "-c", code, here, str(path.resolve()), str(repeats), str(runs)]
    done = subprocess.run(args, capture_output=True, text=True, check=True, env=env, cwd=base)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


ROWS = (
    ("cold: bytes -> first result (CPU)", ("cold", "total_ms")),
    ("  of which loading", ("cold", "load_ms")),
    ("  of which the first scan", ("cold", "first_ms")),
    ("  (stdlib json.loads, first in its process)", ("cold", "json_loads_ms")),
    ("  (stdlib json.loads, after the cold path)", ("cold", "json_loads_after_ms")),
    ("  loading / json.loads, geometric mean of both orders", ("cold", "load_ratio")),
    ("  cold, wall", ("cold", "total_wall_ms")),
    ("first scan, book loaded", ("first", "cpu_ms")),
    ("unseen", ("unseen", "cpu_ms")),
    ("steady", ("steady", "cpu_ms")),
    ("next turn (first with timed records)", ("next_turn", "cpu_ms")),
    ("the turn after", ("turn_after", "cpu_ms")),
)


def render(new: Mapping[str, Any], old: Mapping[str, Any] | None) -> list[str]:
    """The table as Markdown rows: ms (CPU) now, on the base, and base / now."""
    lines = ["| large.json | now (ms) | base (ms) | base / now |", "| --- | --- | --- | --- |"]
    for label, (group, key) in ROWS:
        a = new[group][key]
        b = old[group][key] if old is not None else None
        ratio = f"{b / a:.1f}x" if b is not None and a else ""
        lines.append(f"| {label} | {a:g} | {'' if b is None else f'{b:g}'} | {ratio} |")
    return lines
