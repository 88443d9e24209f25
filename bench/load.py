"""Loading speed: the bytes of a 5,000-entry world file to a ``Book``, in fresh processes.

Each run is a new interpreter (its start and the ``import`` of worldinfo excluded) that times,
once each and in this order: stdlib ``json.loads`` of the bytes, ``_js.parse_json``,
``Book.from_json`` of that (``js_ordered=True`` where the code has it), and
``importers.load`` of the bytes twice (the first call also compiles the schema check: what a
user's first import pays). Medians over the runs, CPU time (``process_time``) beside wall
time. With ``--base DIR`` every run is repeated with ``PYTHONPATH=DIR`` (an older checkout)
right after, and each loaded book is compared with the base's by a digest of every entry's
data in key order at every level.

    python bench/load.py                                 # this checkout
    python bench/load.py --base /work/wt/base --json     # side by side with an old checkout
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# The child: prints one JSON object of {step: [wall ms, cpu ms]} plus the book digests.
CHILD = r"""
import hashlib, inspect, json, sys, time
from pathlib import Path
import worldinfo
from worldinfo import importers
from worldinfo._js import parse_json
from worldinfo.types import Book

raw = Path(sys.argv[1]).read_bytes()
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

timed("json.loads", lambda: json.loads(raw))
obj = timed("parse_json", lambda: parse_json(raw))
fast = "js_ordered" in inspect.signature(Book.from_json).parameters
kw = {"js_ordered": True} if fast else {}
book = timed("Book.from_json", lambda: Book.from_json("Big", obj, **kw))
first = timed("importers.load (first)", lambda: importers.load(raw, name="Big.json"))
timed("importers.load (again)", lambda: importers.load(raw, name="Big.json"))
out["digest"] = digest(book)
out["import digest"] = digest(first.books[0])
out["entries"] = len(book.entries)
print(json.dumps(out))
"""

STEPS = (
    "json.loads",
    "parse_json",
    "Book.from_json",
    "importers.load (first)",
    "importers.load (again)",
)


def child(book_file: Path, pythonpath: str) -> dict[str, Any]:
    """One fresh process over ``book_file`` with ``pythonpath`` first on its path."""
    env = {**os.environ, "PYTHONPATH": pythonpath}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(book_file)],
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


def book_bytes(large: Path, directory: Path) -> Path:
    """Write the ``Big`` book of the golden large case (key order as in the file)."""
    case = json.loads(large.read_bytes())
    path = directory / "Big.json"
    path.write_text(json.dumps(case["books"]["Big"], ensure_ascii=False), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", type=Path, default=ROOT / "golden/st-perf/large.json")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--base", type=Path, help="an older checkout to run side by side")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    here = os.environ.get("PYTHONPATH") or str(ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        path = book_bytes(args.large, Path(tmp))
        runs: list[dict[str, Any]] = []
        base_runs: list[dict[str, Any]] = []
        for _ in range(args.repeats):
            runs.append(child(path, here))
            if args.base:
                base_runs.append(child(path, str(args.base)))
        size = path.stat().st_size
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}, load average {os.getloadavg()[0]:.2f} at the end",
        "book": f"{runs[0]['entries']} entries, {size} bytes",
        "code": runs[0]["worldinfo"],
        "repeats": args.repeats,
        "new": medians(runs),
    }
    digests = {r["digest"] for r in runs} | {r["import digest"] for r in runs}
    if args.base:
        report["base"] = medians(base_runs)
        report["base code"] = base_runs[0]["worldinfo"]
        digests |= {r["digest"] for r in base_runs} | {r["import digest"] for r in base_runs}
    report["same books"] = len(digests) == 1
    new = report["new"]
    loads = new["json.loads"]["cpu_ms"]
    to_book = new["parse_json"]["cpu_ms"] + new["Book.from_json"]["cpu_ms"]
    report["bytes to Book / json.loads (cpu)"] = round(to_book / loads, 2)
    report["importers.load first / json.loads (cpu)"] = round(
        new["importers.load (first)"]["cpu_ms"] / loads, 2
    )
    if args.json:
        print(json.dumps(report, indent=1))
        return 0 if report["same books"] else 1
    print(report["machine"])
    print(report["book"], "| code:", report["code"], "| runs:", args.repeats)
    print(f"{'step':<26}{'cpu ms':>9}{'wall ms':>9}", end="")
    print(f"{'base cpu':>10}{'base wall':>10}{'ratio':>8}" if args.base else "")
    for step in STEPS:
        row = new[step]
        print(f"{step:<26}{row['cpu_ms']:>9.1f}{row['wall_ms']:>9.1f}", end="")
        if args.base:
            b = report["base"][step]
            ratio = b["cpu_ms"] / row["cpu_ms"] if row["cpu_ms"] else float("inf")
            print(f"{b['cpu_ms']:>10.1f}{b['wall_ms']:>10.1f}{ratio:>7.1f}x")
        else:
            print()
    print("bytes -> Book:", report["bytes to Book / json.loads (cpu)"], "x json.loads (CPU)")
    print("importers.load, first:", report["importers.load first / json.loads (cpu)"], "x")
    print("same books (digest of every entry):", report["same books"])
    return 0 if report["same books"] else 1


if __name__ == "__main__":
    sys.exit(main())
