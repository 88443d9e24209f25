"""The cyclic collector's share of the first scan of a loaded book, and what it walks.

A plan is built with the collector paused (``collector_paused``): the containers the build
leaves stay in the youngest generation, and the first collection of the scan after it walks
every one of them and touches what they refer to (cold memory: the book's entry objects,
for the origins). ``first_scan.py`` times the collections of a scan on a plan built before
it (after the plan's containers were collected); this times those of a whole first scan.
Prints, over fresh caches, the first scan's CPU time, the part its collections took
(``gc.callbacks``), and the young containers one plan build leaves, by type.

    python bench/young_objects.py --runs 11 [--json]
"""

from __future__ import annotations

import collections
import gc
import os
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: base runs

import scan_turns  # bench/ is the script's directory

from worldinfo.engine.fast.cache import ScanCache


def main(argv: list[str] | None = None) -> int:
    args, case, books, step = scan_turns.first_scan_args(__doc__.splitlines()[0], argv)
    scans: list[float] = []
    collecting: list[float] = []
    ok = True
    with scan_turns.CollectorTime() as gc_time:
        for _ in range(args.runs):
            session = scan_turns._session(case, books)
            session.scan_cache = ScanCache()
            gc.collect()  # the scan's collections walk what the scan (and its plan) made
            t, g = time.process_time(), gc_time.spent
            result = scan_turns._step(session, step)
            scans.append(time.process_time() - t)
            collecting.append(gc_time.spent - g)
            ok = ok and scan_turns.as_expected(step, session, result)
    session = scan_turns._session(case, books)
    cache = ScanCache()
    gc.collect()
    gc.disable()  # no collection between the build and the count
    try:
        cache.plan(session.books, session.selection, session.settings)
        young = collections.Counter(type(o).__name__ for o in gc.get_objects(0))
    finally:
        gc.enable()
    out = {
        "load": os.getloadavg()[0],
        "runs": args.runs,
        "first_scan_ms": scan_turns.ms_summary(scans),
        "gc_in_first_scan_ms": scan_turns.ms_summary(collecting),
        "young_after_plan": sum(young.values()),
        "young_by_type": dict(young.most_common(4)),
        "ok": ok,
    }
    return scan_turns.report(out, as_json=args.json)


if __name__ == "__main__":
    raise SystemExit(main())
