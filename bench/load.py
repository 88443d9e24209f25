"""Loading speed: the bytes of a 5,000-entry world file to a ``Book``, in fresh processes.

Each run is a new interpreter (its start and the ``import`` of worldinfo excluded) that times
the steps once each: stdlib ``json.loads`` of the bytes, ``_js.parse_json``,
``Book.from_json`` of that (``js_ordered=True`` where the code has it), and
``importers.load`` of the bytes twice (the first call also compiles the schema check: what a
user's first import pays). Every result is dropped before the next step, so a later step
reuses the memory an earlier one grew: whichever big parse runs first in a process pays for
growing the heap. So the runs alternate two orders, "json first" (``json.loads`` first,
then worldinfo's steps) and "json last" (worldinfo's steps, then ``json.loads``), and the
ratios to ``json.loads`` are given for each order and as their geometric mean (the order
effect cancels). Medians over the runs of each order, CPU time (``process_time``) beside
wall time. With ``--base DIR`` every run is repeated with ``PYTHONPATH=DIR`` (an older
checkout) right after, and each loaded book is compared with the base's by a digest of
every entry's data in key order at every level.

    python bench/load.py                                 # this checkout
    python bench/load.py --base /work/wt/base --json     # side by side with an old checkout
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ORDERS = ("json first", "json last")

# The child: prints one JSON object of {step: [wall ms, cpu ms]} plus the book digests.
CHILD = r"""
import hashlib, inspect, json, sys, time
from pathlib import Path
import worldinfo
from worldinfo import importers
from worldinfo._js import parse_json
from worldinfo.types import Book

raw = Path(sys.argv[1]).read_bytes()
json_first = sys.argv[2] == "json first"
out = {"worldinfo": worldinfo.__file__}

def timed(name, f):
    w, c = time.perf_counter(), time.process_time()
    value = f()
    out[name] = [(time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000]
    return value

def shape(v):
    if isinstance(v, dict):
        return {"o": [[k, shape(x)] for k, x in v.items()]}
    if isinstance(v, list):
        return [shape(x) for x in v]
    return [type(v).__name__, repr(v)]

def digest(book):
    data = [shape(dict(e.data)) for e in book.entries]
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()[:16]

def stdlib():
    timed("json.loads", lambda: json.loads(raw))  # the value is dropped at once

if json_first:
    stdlib()
obj = timed("parse_json", lambda: parse_json(raw))
fast = "js_ordered" in inspect.signature(Book.from_json).parameters
kw = {"js_ordered": True} if fast else {}
book = timed("Book.from_json", lambda: Book.from_json("Big", obj, **kw))
out["digest"], out["entries"] = digest(book), len(book.entries)
del obj, book
first = timed("importers.load (first)", lambda: importers.load(raw, name="Big.json"))
out["import digest"] = digest(first.books[0])
del first
if not json_first:
    stdlib()
timed("importers.load (again)", lambda: importers.load(raw, name="Big.json"))
print(json.dumps(out))
"""

STEPS = (
    "json.loads",
    "parse_json",
    "Book.from_json",
    "importers.load (first)",
    "importers.load (again)",
)


def child(book_file: Path, pythonpath: str, *, order: str) -> dict[str, Any]:
    """One fresh process over ``book_file`` with ``pythonpath`` first on its path."""
    env = {**os.environ, "PYTHONPATH": pythonpath}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(book_file), order],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tempfile.gettempdir(),
        timeout=120,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def medians(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Median wall and CPU milliseconds per step."""
    return {
        s: {
            "wall_ms": round(statistics.median(r[s][0] for r in runs), 1),
            "cpu_ms": round(statistics.median(r[s][1] for r in runs), 1),
        }
        for s in STEPS
    }


def ratios(by_order: dict[str, dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Bytes -> ``Book`` and the first ``importers.load`` over ``json.loads`` (CPU medians),
    for each order and as the geometric mean of the two orders."""
    out: dict[str, dict[str, float]] = {}
    for label, steps in (
        ("bytes to Book / json.loads", ("parse_json", "Book.from_json")),
        ("importers.load first / json.loads", ("importers.load (first)",)),
    ):
        row = {
            order: sum(m[s]["cpu_ms"] for s in steps) / m["json.loads"]["cpu_ms"]
            for order, m in by_order.items()
        }
        row["geometric mean"] = math.sqrt(math.prod(row.values()))
        out[label] = {k: round(v, 2) for k, v in row.items()}
    return out


def book_bytes(large: Path, directory: Path) -> Path:
    """Write the ``Big`` book of the golden large case (key order as in the file)."""
    case = json.loads(large.read_bytes())
    path = directory / "Big.json"
    path.write_text(json.dumps(case["books"]["Big"], ensure_ascii=False), encoding="utf-8")
    return path


def measure(path: Path, pythonpath: str, *, repeats: int) -> list[dict[str, Any]]:
    """``repeats`` fresh processes in each order, the orders alternating."""
    runs = []
    for i in range(2 * repeats):
        order = ORDERS[i % 2]
        runs.append({**child(path, pythonpath, order=order), "order": order})
    return runs


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-order medians and the ratios to ``json.loads``."""
    by_order = {o: medians([r for r in runs if r["order"] == o]) for o in ORDERS}
    return {"medians": by_order, "ratios (cpu)": ratios(by_order)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", type=Path, default=ROOT / "golden/st-perf/large.json")
    parser.add_argument("--repeats", type=int, default=7, help="fresh processes per order")
    parser.add_argument("--base", type=Path, help="an older checkout to run side by side")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    here = os.environ.get("PYTHONPATH") or str(ROOT)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        path = book_bytes(args.large, Path(tmp))
        runs: list[dict[str, Any]] = []
        base_runs: list[dict[str, Any]] = []
        for _ in range(args.repeats):  # this checkout and the base interleaved, both orders
            runs += measure(path, here, repeats=1)
            if args.base:
                base_runs += measure(path, str(args.base), repeats=1)
        size = path.stat().st_size
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, load average {load_before:.2f} at the start, "
        f"{os.getloadavg()[0]:.2f} at the end",
        "book": f"{runs[0]['entries']} entries, {size} bytes",
        "code": runs[0]["worldinfo"],
        "repeats per order": args.repeats,
        "new": summary(runs),
    }
    digests = {r["digest"] for r in runs} | {r["import digest"] for r in runs}
    if args.base:
        report["base"] = summary(base_runs)
        report["base code"] = base_runs[0]["worldinfo"]
        digests |= {r["digest"] for r in base_runs} | {r["import digest"] for r in base_runs}
    report["same books"] = len(digests) == 1
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_report(report, base=bool(args.base))
    return 0 if report["same books"] else 1


def print_report(report: dict[str, Any], *, base: bool) -> None:
    """The report as a table per order, then the ratios."""
    print(report["machine"])
    print(report["book"], "| code:", report["code"], "| runs per order:", end=" ")
    print(report["repeats per order"])
    for order in ORDERS:
        print(f"\n{order}:")
        print(f"{'step':<26}{'cpu ms':>9}{'wall ms':>9}", end="")
        print(f"{'base cpu':>10}{'base wall':>10}{'base/now':>9}" if base else "")
        for step in STEPS:
            row = report["new"]["medians"][order][step]
            print(f"{step:<26}{row['cpu_ms']:>9.1f}{row['wall_ms']:>9.1f}", end="")
            if base:
                b = report["base"]["medians"][order][step]
                ratio = b["cpu_ms"] / row["cpu_ms"] if row["cpu_ms"] else float("inf")
                print(f"{b['cpu_ms']:>10.1f}{b['wall_ms']:>10.1f}{ratio:>8.2f}x")
            else:
                print()
    print()
    for which in ("new", "base") if base else ("new",):
        for label, row in report[which]["ratios (cpu)"].items():
            cells = ", ".join(f"{k} {v:.2f}x" for k, v in row.items())
            print(f"{which:<5}{label}: {cells}")
    print("same books (digest of every entry):", report["same books"])


if __name__ == "__main__":
    sys.exit(main())
