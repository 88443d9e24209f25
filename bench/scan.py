"""Scan speed: the fast path against the straightforward path, measured in the same run.

Runs the golden large case (checked against SillyTavern's expectations) and generated
scaling series (checked against the straightforward path: ``Session.scan_cache = None``,
every entry and every key over the whole scan text on every pass). Prints medians over
repeated runs, the ratio to the straightforward path and growth factors between sizes.

Two fast figures per case: "steady" is a session whose book is prepared and whose chat
lines were seen before (a front-end generating turn after turn); "unseen" drops the
per-line key cache before every run, so all text is matched afresh.

    python bench/scan.py                       # everything (about 8 minutes)
    python bench/scan.py --large golden/st-perf/large.json --json
    python bench/scan.py --memory 50000        # peak RSS of one 50k-entry scan
    python bench/scan.py --table --base ../base # cold/first/unseen/steady/next turn, both
    python bench/scan.py --table --markdown     # the same as the README's summary table
    python bench/scan.py --scaling --markdown   # the README's scaling table (~10 min; scan_scaling.py)

"Cold" (``scan_turns.COLD``): a fresh process, from the book's own bytes to the first result;
the imports a scan needs are timed apart and the conformance harness is not timed.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: base runs

import itertools

import scan_scaling
import scan_turns  # bench/ is the script's directory
from regex_keys import machine  # CPUs, model, Python, load average

import worldinfo
from worldinfo._js import canonical, parse_json
from worldinfo.conformance import generate as gen
from worldinfo.conformance.st import first_difference, message, observed, session_for
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.types import Book

Case = Mapping[str, Any]


def run(
    case: Case, books: dict[str, Book], cache: ScanCache | None
) -> tuple[list[float], list[Any]]:
    """Run every step on a new session; wall time per scan and the observed records."""
    session = session_for(case)
    session.books = books
    session.scan_cache = cache
    times, seen = [], []
    for step in case["steps"]:
        append = [message(m) for m in step.get("append") or ()]
        t = time.perf_counter()
        result = session.generate(step.get("type", "normal"), append=append)
        times.append(time.perf_counter() - t)
        seen.append(canonical(observed(session, result)))
    return times, seen


def measure(case: Case, *, repeats: int, reference: bool = True) -> dict[str, Any]:
    """Medians (ms per scan) fast steady / fast unseen / straightforward, and correctness."""
    books = session_for(case).books
    cache = ScanCache()
    times, first = run(case, books, cache)
    prepare = times[0]
    expected = [s.get("expect") for s in case["steps"]]
    if all(e is not None for e in expected):
        ok = all(not first_difference(e, g) for e, g in zip(expected, first, strict=False))
        judge = "SillyTavern's expectations"
    else:
        ok = True
        judge = "the straightforward path"
    out: dict[str, Any] = {
        "first_scan_ms": round(prepare * 1000, 1),
        "loops": [r.get("scan_loops") for r in first],
        "activated": [len(r.get("activated") or ()) for r in first],
    }
    if reference:
        ref_times, ref_seen = run(case, books, None)
        same = ref_seen == first
        ok = ok and same
        out["straightforward_ms"] = round(statistics.median(ref_times) * 1000, 2)
    steady: list[float] = []
    unseen: list[float] = []
    for _ in range(repeats):
        times, seen = run(case, books, cache)
        ok = ok and seen == first
        steady += times
        cache.forget_lines()
        times, seen = run(case, books, cache)
        ok = ok and seen == first
        unseen += times
    out["steady_ms"] = round(statistics.median(steady) * 1000, 2)
    out["unseen_ms"] = round(statistics.median(unseen) * 1000, 2)
    if reference:
        out["ratio"] = round(out["straightforward_ms"] / out["unseen_ms"], 1)
    out["matches"] = ok
    out["judge"] = judge
    return out


def growth(rows: list[tuple[int, dict[str, Any]]], field: str) -> list[str]:
    """Growth of ``field`` between consecutive sizes, as "x size -> x time"."""
    out = []
    for (a, ra), (b, rb) in itertools.pairwise(rows):
        out.append(f"{a}->{b}: {b / a:.1f}x size, {rb[field] / ra[field]:.2f}x time")
    return out


def peak_memory(entries: int) -> float:
    """Peak RSS (MiB, ``VmHWM``: ``ru_maxrss`` would include this process's, kept across
    ``exec``) of a fresh process that loads an ``entries``-entry book from its JSON file
    (as a front-end would), then scans the generated chat twice."""
    case = gen.case(name="m", entries=entries, messages=200)
    with tempfile.TemporaryDirectory() as tmp:
        book_file = Path(tmp) / "book.json"
        book_file.write_text(json.dumps(case["books"]["Bench"]))
        case["books"] = {}
        case_file = Path(tmp) / "case.json"
        case_file.write_text(json.dumps(case))
        code = (
            "import sys; sys.path[:0] = ['.'];"
            "from pathlib import Path;"
            "from worldinfo._js import parse_json;"
            "from worldinfo.types import Book;"
            "from worldinfo.conformance.st import session_for;"
            # the generated 50k book holds more JSON values than the default bound allows
            f"book = Book.from_json('Bench', parse_json(Path({str(book_file)!r}).read_bytes(),"
            " bounds=None), js_ordered=True);"
            f"s = session_for(parse_json(Path({str(case_file)!r}).read_bytes()));"
            "s.books = {'Bench': book}; s.global_books = ['Bench'];"
            "s.generate('normal'); s.generate('normal');"
            "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')))"
        )
        root = Path(worldinfo.__file__).resolve().parent.parent  # the code measured here
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
        )
    return int(done.stdout.strip()) / 1024


def turn_table(args: argparse.Namespace) -> int:
    """Print the cold / first / unseen / steady / next-turn table (and ``--base`` beside);
    with ``--markdown`` as the README's summary table."""
    code = f"; code: {scan_scaling.code_label()}" if args.markdown else ""
    print(f"machine: {machine()}{code}")
    new = scan_turns.table(args.large, repeats=args.repeats, runs=args.cold_runs)
    old = None
    if args.base is not None:
        old = scan_turns.on_base(args.base, args.large, repeats=args.repeats, runs=args.cold_runs)
    if args.markdown:
        print("\n".join(scan_scaling.summary_markdown(new, old)))
    elif args.json:
        print(f"now: {new['code']}" + (f"; base: {old['code']}" if old else ""))
        print(json.dumps({"now": new, "base": old}))
    else:
        print(f"now: {new['code']}" + (f"; base: {old['code']}" if old else ""))
        print("\n".join(scan_turns.render(new, old)))
        print(f"timed-effect records after turn 2: {new['records']}")
    if not args.json:
        print("results match" if new["ok"] else "MISMATCH: a result differs")
    print(f"machine after: {machine()}")
    return 0 if new["ok"] else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", type=Path, default=Path("golden/st-perf/large.json"))
    parser.add_argument("--longchat", type=Path, default=Path("golden/st-perf/longchat.json"))
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="only the large case, one object")
    parser.add_argument("--memory", type=int, metavar="ENTRIES", help="peak RSS only")
    parser.add_argument("--quick", action="store_true", help="no straightforward run at 50k")
    parser.add_argument("--table", action="store_true", help="only the large.json turn table")
    parser.add_argument("--base", type=Path, help="also run the turn table on this checkout")
    parser.add_argument(
        "--cold-runs", type=int, default=7, help="fresh processes per order for 'cold'"
    )
    parser.add_argument("--scaling", action="store_true", help="only the scaling table")
    parser.add_argument("--check-all", action="store_true", help="--scaling: check 50k too")
    parser.add_argument("--markdown", action="store_true", help="--table/--scaling as Markdown")
    args = parser.parse_args(argv)
    if args.scaling:
        return scan_scaling.main_scaling(args)
    if args.memory:
        print(f"peak RSS, {args.memory} entries: {peak_memory(args.memory):.0f} MiB")
        return 0
    if args.table:
        return turn_table(args)
    large = measure(parse_json(args.large.read_bytes()), repeats=args.repeats)
    report: dict[str, Any] = {
        "large": {
            "median_ms_per_scan": large["unseen_ms"],
            "steady_ms_per_scan": large["steady_ms"],
            "straightforward_ms_per_scan": large["straightforward_ms"],
            "ratio": large["ratio"],
            "matches_expectation": large["matches"],
        }
    }
    if args.json:
        print(json.dumps(report))
        return 0 if large["matches"] else 1
    ok = large["matches"]
    print(f"machine: {machine()}")
    print(f"large.json (5000 entries, 200 messages): {large}")
    turns = scan_turns.table(args.large, repeats=args.repeats, runs=args.cold_runs)
    ok = ok and turns["ok"]
    print("\n".join(scan_turns.render(turns, None)))
    if args.longchat.exists():
        lc = measure(parse_json(args.longchat.read_bytes()), repeats=3)
        ok = ok and lc["matches"]
        print(f"longchat.json (1000 entries, 2000 messages, widening): {lc}")
    rows = []
    for n in (1000, 5000, 20000, 50000):
        c = gen.case(name=f"e{n}", entries=n, messages=200)
        r = measure(c, repeats=5, reference=not (args.quick and n > 20000))
        ok = ok and r["matches"]
        rows.append((n, r))
        print(f"entries {n:>6} x 200 messages, depth 10: {r}")
    print("entries growth (unseen):", "; ".join(growth(rows, "unseen_ms")))
    chats = []
    for m in (50, 100, 200, 1000, 2000):
        c = gen.case(name=f"c{m}", entries=5000, messages=m, depth=1000, recursive=False)
        r = measure(c, repeats=5)
        ok = ok and r["matches"]
        chats.append((m, r))
        print(f"5000 entries x {m:>4} messages, depth 1000: {r}")
    print("chat growth (unseen):", "; ".join(growth(chats, "unseen_ms")))
    wide = measure(gen.long_chat(), repeats=3)
    ok = ok and wide["matches"]
    print(f"generated long chat (1000 entries, 2000 messages, widening to 1000): {wide}")
    print(f"peak RSS, 50000 entries: {peak_memory(50000):.0f} MiB")
    print(
        f"this process max RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )
    print("all results match" if ok else "MISMATCH: a fast result differs")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
