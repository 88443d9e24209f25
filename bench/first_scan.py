"""The first scan of a loaded book (plan build + unseen text), repeated on fresh caches.

Each run builds a new ``ScanCache`` over the already loaded ``Book`` and scans the case's
first step; the result is checked against SillyTavern's expectation. Prints CPU-time
median and minimum per first scan, the plan build alone (``ScanCache.plan``), and the scan
on a plan built just before it (``scan_after_plan_ms``: the first scan minus the build),
and how much of that scan the cyclic collector ran (``gc_in_scan_after_plan_ms``, timed by
``gc.callbacks``: the plan's young containers are walked by the scan's first collections).

On a loaded machine CPU time is noisy; an instruction count is not. Run the script under
callgrind twice, with no scans and with three, and divide the difference by three:

    python bench/first_scan.py --runs 11 [--json]
    valgrind --tool=callgrind python bench/first_scan.py --runs 0   # and --runs 3
"""

from __future__ import annotations

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
    plans: list[float] = []
    after: list[float] = []
    collector: list[float] = []
    ok = True
    with scan_turns.CollectorTime() as gc_time:
        for _ in range(args.runs):
            session = scan_turns._session(case, books)
            session.scan_cache = ScanCache()
            t = time.process_time()
            result = scan_turns._step(session, step)
            scans.append(time.process_time() - t)
            ok = ok and scan_turns.as_expected(step, session, result)
            cache = ScanCache()
            t = time.process_time()
            cache.plan(session.books, session.selection, session.settings)
            plans.append(time.process_time() - t)
            session = scan_turns._session(case, books)
            session.scan_cache = cache  # its plan is fresh: no scan has read it yet
            t, g = time.process_time(), gc_time.spent
            result = scan_turns._step(session, step)
            after.append(time.process_time() - t)
            collector.append(gc_time.spent - g)
            ok = ok and scan_turns.as_expected(step, session, result)
    out = {
        "load": os.getloadavg()[0],
        "runs": args.runs,
        "first_scan_ms": scan_turns.ms_summary(scans),
        "plan_build_ms": scan_turns.ms_summary(plans),
        "scan_after_plan_ms": scan_turns.ms_summary(after),
        "gc_in_scan_after_plan_ms": scan_turns.ms_summary(collector),
        "ok": ok,
    }
    return scan_turns.report(out, as_json=args.json)


if __name__ == "__main__":
    raise SystemExit(main())
