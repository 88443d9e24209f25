"""Several processes on one SQLite chat-memory store, measured (run by hand).

Runs W writer processes x N ingests each on one store, and the same N x W ingests by one
process, side by side; reports the wall time of both, how often the writers' records
interleave (id order), the slowest ingests (the time spent waiting for another writer's
lock) and whether every exchange was stored. Then R reader opens while one writer ingests:
how many failed and the record counts seen. ``--json`` prints one object.

    .venv/bin/python bench/store_concurrency.py [--writers 2] [--ingests 1000] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # after PYTHONPATH: base runs

import worldinfo
from worldinfo.sources.store_errors import StoreError
from worldinfo.sources.store_sqlite import SqliteStore

WRITER = textwrap.dedent(
    """
    import json, sys, time
    from worldinfo.sources.store_sqlite import SqliteStore
    db, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = SqliteStore(db)
    sys.stdin.readline()
    waits = []
    for i in range(n):
        text = f"shared{i % 13} {name}{i} fresh{i} common{i % 101}"
        t = time.perf_counter()
        store.ingest(f"user {text}", f"reply {name} {i}", source_ref=f"{name}#{i}")
        waits.append(time.perf_counter() - t)
    store.close()
    waits.sort()
    print(json.dumps({"max_ms": waits[-1] * 1e3, "p99_ms": waits[int(len(waits) * 0.99)] * 1e3,
                      "median_ms": waits[len(waits) // 2] * 1e3}))
    """
)
# the writers run the code this process imported (PYTHONPATH=<checkout> when given)
ENV = {**os.environ, "PYTHONPATH": str(Path(worldinfo.__file__).resolve().parent.parent)}


def _run_writers(db: Path, names: list[str], n: int) -> tuple[float, list[dict[str, float]]]:
    SqliteStore(db).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), name, str(n)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        for name in names
    ]
    time.sleep(0.5)  # let every writer open the store
    start = time.perf_counter()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    outs = [proc.communicate()[0] for proc in procs]
    elapsed = time.perf_counter() - start
    assert all(proc.returncode == 0 for proc in procs)
    return elapsed, [json.loads(out) for out in outs]


def _count(db: Path) -> int:
    with SqliteStore(db, readonly=True) as store:
        return len(store)


def measure(writers: int, n: int, readers: int) -> dict[str, object]:
    """Run the scenarios and return the figures."""
    with tempfile.TemporaryDirectory() as tmp:
        shared = Path(tmp) / "shared.db"
        names = [f"w{k}" for k in range(writers)]
        together, stats = _run_writers(shared, names, n)
        with SqliteStore(shared, readonly=True) as store:
            owners = [r.source_ref.split("#")[0] for r in store.records()]
            stored = len(store)
        switches = sum(a != b for a, b in itertools.pairwise(owners))
        alone, _ = _run_writers(Path(tmp) / "alone.db", ["solo"], n * writers)
        busy = Path(tmp) / "busy.db"
        SqliteStore(busy).close()
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(busy), "r", str(10**6)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env=ENV,
        )
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
        while _count(busy) < 200:  # the writer is under way
            time.sleep(0.05)
        failed, seen = 0, []
        for _ in range(readers):
            try:
                with SqliteStore(busy, readonly=True) as store:
                    seen.append(len(store))
            except StoreError:
                failed += 1
        proc.kill()
        proc.wait()
    return {
        "writers": writers,
        "ingests_each": n,
        "stored": stored,
        "expected": writers * n,
        "interleavings": switches,
        "together_s": round(together, 2),
        "one_process_s": round(alone, 2),
        "ingest_ms": stats,
        "reader_opens": readers,
        "reader_failures": failed,
        "reader_counts": [seen[0], seen[-1]] if seen else [],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writers", type=int, default=2)
    ap.add_argument("--ingests", type=int, default=1000)
    ap.add_argument("--readers", type=int, default=30)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    got = measure(args.writers, args.ingests, args.readers)
    if args.json:
        print(json.dumps(got))
        return
    for key, value in got.items():
        print(f"{key:>16}: {value}")


if __name__ == "__main__":
    main()
