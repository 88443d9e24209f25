"""The turn table of ``bench/scan.py`` (issue 13, point 7): cold / first / unseen / steady /
next-turn on ``golden/st-perf/large.json``, this checkout beside another one.

- cold: a fresh process, from the bytes of the book alone (4.4 MB) to the first
  ``ScanResult``, split into loading (``parse_json`` + ``Book.from_json``) and the first
  scan. Interpreter start and the imports of the modules a scan needs are excluded, and
  timed beside it (also given as cold with them); the conformance harness that builds the
  session from the case is not timed at all. Stdlib ``json.loads`` of the same bytes
  beside it, run first in half of the processes and last in the others (see ``COLD``);
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

import argparse
import gc
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Self

import worldinfo
from worldinfo._js import canonical, parse_json
from worldinfo.conformance.st import first_difference, message, observed, session_for
from worldinfo.engine.fast.cache import ScanCache

Case = Mapping[str, Any]
# A fresh process (started in the checkout, which ``-c`` puts first on the path): bytes of
# the book -> first ScanResult. Timed apart, in this order: ``imports``
# (the modules a program that loads a book and scans needs: ``_js``, ``types``, ``session``,
# which pulls in the engine), then ``load`` (``parse_json`` + ``Book.from_json`` of the
# book's own 4.4 MB, a file of its own: ``parse`` + ``from_json``) and ``first`` (the
# first ``Session.generate``; modules it imports lazily count here), itself split into
# ``plan`` (``ScanCache.plan`` called first, as the scan would) and ``scan`` (the
# ``generate`` that then finds the plan built); ``total`` = ``load`` + ``first``, imports
# excluded, ``total_with_imports`` with them. Not timed: the conformance harness
# (``conformance.st``: it imports ``dataclasses``, ``zoneinfo`` and more that no scan needs)
# and the session it builds from the case without its books (a small file, so the harness
# grows no heap for the book). Stdlib ``json.loads`` of the same book bytes runs either
# before the clock ("json first": its value dropped at once, so the worldinfo steps then
# reuse the memory it grew) or after the scan ("json last": everything dropped first). A
# big parse that runs first in a process pays for growing the heap: beside each of
# ``load`` / ``plan`` / ``scan`` the process's minor page faults (``faults_*``: new heap
# touched for the first time, ~4-5 us of CPU each on a VM) and the milliseconds the cyclic
# collector ran (``gc_*_ms``, timed by ``gc.callbacks``) say what a fresh process pays
# that a warm one does not.
COLD = """
import gc, json, resource, sys, time
spent = [0.0, 0.0]
def on_gc(phase, info):
    if phase == "start":
        spent[1] = time.perf_counter()
    else:
        spent[0] += time.perf_counter() - spent[1]
gc.callbacks.append(on_gc)
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
c0 = time.process_time()
from worldinfo._js import parse_json
from worldinfo.types import Book
import worldinfo.session
imports = time.process_time() - c0
from worldinfo.conformance.st import message, session_for
book_path, rest_path, name = sys.argv[1], sys.argv[2], sys.argv[3]
json_first = sys.argv[4] == "json first"
with open(rest_path, "rb") as f:
    case = json.loads(f.read())
session = session_for(case)
step = case["steps"][0]
append = [message(m) for m in step.get("append") or ()]
with open(book_path, "rb") as f:
    data = f.read()
def stdlib():
    c = time.process_time()
    json.loads(data)
    return time.process_time() - c
before = stdlib() if json_first else None
f0, g0 = faults(), spent[0]
t0, c0 = time.perf_counter(), time.process_time()
world = parse_json(data)
cw = time.process_time()
try:  # parse_json's objects are in JavaScript order already: no copy (importers.load's path)
    book = Book.from_json(name, world, js_ordered=True)
except TypeError:  # a checkout from before js_ordered
    book = Book.from_json(name, world)
t1, c1 = time.perf_counter(), time.process_time()
f1, g1 = faults(), spent[0]
session.books = {name: book}
# the plan alone first (``first`` = ``plan`` + ``scan``; generate finds it cached)
session.scan_cache.plan(session.books, session.selection, session.settings, trust=session.trust)
cp = time.process_time()
fp, gp = faults(), spent[0]
result = session.generate(step.get("type", "normal"), append=append)
t2, c2 = time.perf_counter(), time.process_time()
f2, g2 = faults(), spent[0]
activated = len(result.activated)
del world, book, session, result
after = before if json_first else stdlib()
print(json.dumps({"load": c1 - c0, "first": c2 - c1, "total": c2 - c0, "wall": t2 - t0,
                  "imports": imports, "total_with_imports": c2 - c0 + imports,
                  "parse": cw - c0, "from_json": c1 - cw, "plan": cp - c1, "scan": c2 - cp,
                  "json_loads": after, "activated": activated,
                  "faults_load": f1 - f0, "faults_plan": fp - f1, "faults_scan": f2 - fp,
                  "gc_load": g1 - g0, "gc_plan": gp - g1, "gc_scan": g2 - gp}))
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
    CPU time; ``total_wall_ms`` wall). ``total`` / ``load`` / ``first`` / ``imports`` come
    from the "json last" runs (nothing ran before them in the process: the real cold path);
    ``json_loads`` from the "json first" runs likewise (the first big parse of its process),
    and ``json_loads_after`` / ``load_after_json`` are the same steps when they ran second.
    ``load_ratio_*`` are loading over ``json.loads`` in each order and their geometric mean.
    The book is written to a file of its own (key order as in the case file, as
    ``bench/load.py`` does), the rest of the case to another (see ``COLD``).
    """
    case = json.loads(path.read_bytes())
    name = next(iter(case["books"]))
    got: dict[str, list[dict[str, float]]] = {o: [] for o in ORDERS}
    checkout = Path(worldinfo.__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        book_file, rest_file = Path(tmp, "book.json"), Path(tmp, "rest.json")
        book_file.write_text(json.dumps(case["books"][name], ensure_ascii=False), "utf-8")
        rest_file.write_text(json.dumps({**case, "books": {}}, ensure_ascii=False), "utf-8")
        for i in range(2 * runs):
            order = ORDERS[i % 2]
            done = subprocess.run(
                [sys.executable, "-c", COLD, str(book_file), str(rest_file), name, order],
                capture_output=True,
                text=True,
                check=True,
                cwd=checkout,  # ``-c`` puts the cwd first on the path
            )
            got[order].append(json.loads(done.stdout))

    def med(order: str, key: str) -> float:
        return round(statistics.median(g[key] for g in got[order]) * 1000, 1)

    keys = ("total", "load", "parse", "from_json", "first", "plan", "scan")
    keys += ("imports", "total_with_imports")
    out = {f"{k}_ms": med("json last", k) for k in keys}
    out["total_wall_ms"] = med("json last", "wall")
    out["json_loads_ms"] = med("json first", "json_loads")
    out["json_loads_after_ms"] = med("json last", "json_loads")
    out["load_after_json_ms"] = med("json first", "load")
    first = out["load_after_json_ms"] / out["json_loads_ms"]
    last = out["load_ms"] / out["json_loads_after_ms"]
    out["load_ratio_json_first"] = round(first, 2)
    out["load_ratio_json_last"] = round(last, 2)
    out["load_ratio"] = round(math.sqrt(first * last), 2)
    for part in ("load", "plan", "scan"):
        out[f"faults_{part}"] = int(
            statistics.median(g[f"faults_{part}"] for g in got["json last"])
        )
        out[f"gc_{part}_ms"] = med("json last", f"gc_{part}")
    return out


def _session(case: Case, books: Mapping[str, Any]) -> Any:
    """A session for ``case`` over already loaded ``books``."""
    session = session_for({**case, "books": {}})
    session.books = dict(books)
    return session


class CollectorTime:
    """``with CollectorTime() as gc_time:``: ``gc_time.spent`` is the wall time the cyclic
    collector has run inside the block so far (``gc.callbacks``), in seconds."""

    def __init__(self) -> None:
        self.spent = 0.0
        self._start = 0.0

    def _on_gc(self, phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.spent += time.perf_counter() - self._start

    def __enter__(self) -> Self:
        gc.callbacks.append(self._on_gc)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._on_gc)


def ms_summary(times: list[float]) -> dict[str, float] | None:
    """Median and minimum of ``times`` (seconds) in ms, one decimal; ``None`` for none."""
    if not times:
        return None
    return {
        "median": round(statistics.median(times) * 1000, 1),
        "min": round(min(times) * 1000, 1),
    }


def first_step_loaded(path: Path) -> tuple[Case, Mapping[str, Any], Case]:
    """The case at ``path``, its loaded books and its first step, after one scan of it on
    a cache of its own (imports and per-process tables, not counted by the caller)."""
    case = parse_json(path.read_bytes())
    books = session_for(case).books
    step = case["steps"][0]
    warm = _session(case, books)
    warm.scan_cache = ScanCache()
    _step(warm, step)
    return case, books, step


def first_scan_args(
    description: str, argv: list[str] | None
) -> tuple[argparse.Namespace, Case, Mapping[str, Any], Case]:
    """The options of the first-scan scripts (``--large``, ``--runs``, ``--json``), and the
    case, its loaded books and its first step (``first_step_loaded``)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--large", type=Path, default=Path("golden/st-perf/large.json"))
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    return (args, *first_step_loaded(args.large))


def as_expected(step: Case, session: Any, result: Any) -> bool:
    """Is ``result`` (of ``step`` in ``session``) SillyTavern's expectation?"""
    return not first_difference(step["expect"], observed(session, result))


def report(out: Mapping[str, Any], *, as_json: bool) -> int:
    """Print ``out`` (one JSON object, or a line a key); 0 when its ``ok`` holds."""
    print(json.dumps(out) if as_json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0 if out["ok"] else 1


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
    ("    of which parse_json", ("cold", "parse_ms")),
    ("    of which Book.from_json", ("cold", "from_json_ms")),
    ("  of which the first scan", ("cold", "first_ms")),
    ("    of which the plan build", ("cold", "plan_ms")),
    ("    of which the scan on it", ("cold", "scan_ms")),
    ("  (stdlib json.loads, first in its process)", ("cold", "json_loads_ms")),
    ("  (stdlib json.loads, after the cold path)", ("cold", "json_loads_after_ms")),
    ("  loading / json.loads, geometric mean of both orders", ("cold", "load_ratio")),
    ("  cold, wall", ("cold", "total_wall_ms")),
    ("  imports of _js, types, session (not in cold)", ("cold", "imports_ms")),
    ("  cold with those imports (CPU)", ("cold", "total_with_imports_ms")),
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
