"""Where a later turn's time goes: turn after turn of large.json's timed variant, by phase.

``scan_turns.timed_variant`` (every 25th entry sticky, every 40th with a cooldown) on a
fresh cache: turn 1 scans the case's chat, each later turn appends one more message (the
chat's last, then the one before it, ...), as a front-end does. Each turn is timed whole
(CPU) and by phase: the engine's phase functions are wrapped in this process only (CPU
time inside the wrapper, so a phase's figure includes any phase it calls: the entry objects
built and facts derived are counted again inside the passes that read them first, and
every phase but the session's own steps inside ``check()``). The steady scan of the plain
case (the same text again) is measured beside it, and every turn is checked
against the straightforward path (``scan_cache = None``), ``timedWorldInfo`` included.

    python bench/later_turns.py [--turns 8] [--repeats 5] [--json]
    python bench/later_turns.py --instructions [--base /work/wt/base] [--cache]   # valgrind
    python bench/later_turns.py --twin [--turns 6] [--repeats 9]

``--instructions`` counts, under callgrind, the instructions of each turn and of the steady
scan in one child process per checkout (``--dump-before`` a marker call between scans, so
set-up is not counted): unlike CPU time, the count does not move with the machine's load.
``--cache`` adds callgrind's cache simulation and a second table: the first-level cache
misses of each scan (instruction reads, data reads and writes), which explain why a later
turn's CPU time is a larger multiple of the steady scan's than its instruction count is.

``--twin`` runs two sessions over one cache, each turn first in session A and then in
session B: B's turn has the same text and the same records, and finds every entry object,
fact, hash and visit list that A's turn made. A's CPU time minus B's is the first-time work
of the turn (no phase wrappers, nothing read between the turns). The steady scan is timed
after each turn there, not back to back as elsewhere: repeated back to back it keeps its
data in the processor's caches and comes out at about half the time it takes between turns.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import scan_turns  # bench/ is the script's directory
from regex_keys import machine

from worldinfo._js import canonical, parse_json
from worldinfo.conformance.st import observed, session_for
from worldinfo.engine import loop, passes, timed_effects
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.engine.fast.entry_facts import FactTable
from worldinfo.engine.fast.plan import LazyEntries
from worldinfo.session import session as session_module

PHASES: tuple[tuple[Any, str, str], ...] = (
    (session_module, "check", "check() (the rest of generate: the session)"),
    (ScanCache, "plan", "plan (cache lookup)"),
    (loop, "_prepare_timed", "timed effects: prepare (entries and key index of the records)"),
    (timed_effects.TimedEffects, "check", "timed effects: check"),
    (passes, "_nominate_lazy", "nomination (lazy, first chunk)"),
    (passes, "probability_and_budget", "budget (with later chunks)"),
    (loop, "run_loops", "all passes"),
    (LazyEntries, "make_all", "entry objects built (first read by any scan)"),
    (FactTable, "at", "entry facts derived (first read by any scan)"),
    (loop, "hand_out", "hand out (hashes of recording entries)"),
    (loop, "assemble", "assembly"),
    (timed_effects.TimedEffects, "write", "timed effects: write"),
)
Spent = dict[str, float]


def _wrap(spent: Spent) -> None:
    """Wrap each phase function so that its CPU time adds to ``spent`` under its label."""
    for owner, name, label in PHASES:
        fn: Callable[..., Any] = getattr(owner, name)

        def timed(*args: Any, _fn: Callable[..., Any] = fn, _label: str = label, **kw: Any) -> Any:
            start = time.process_time()
            try:
                return _fn(*args, **kw)
            finally:
                spent[_label] += time.process_time() - start

        setattr(owner, name, timed)


def _turns(path: Path, turns: int) -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    """The case at ``path``, its timed variant and ``turns`` steps of it: the chat first,
    then one more message each (the chat's last, then the one before it, ...)."""
    case = parse_json(path.read_bytes())
    variant = scan_turns.timed_variant(case)
    chat = variant["chat"]
    steps: list[dict[str, Any]] = [{"type": "normal"}]
    steps += [{"type": "normal", "append": [chat[-k]]} for k in range(1, turns)]
    return case, variant, steps


def measure(path: Path, *, turns: int, repeats: int) -> dict[str, Any]:
    """Median CPU ms of each turn and of each phase per turn, and the steady scan."""
    case, variant, steps = _turns(path, turns)
    books = session_for(variant).books
    reference = scan_turns._session(variant, books)
    reference.scan_cache = None
    expected = [canonical(observed(reference, scan_turns._step(reference, s))) for s in steps]
    spent: Spent = defaultdict(float)
    _wrap(spent)
    cpu: list[list[float]] = [[] for _ in steps]
    phases: list[dict[str, list[float]]] = [defaultdict(list) for _ in steps]
    ok = True
    for _ in range(repeats):
        session = scan_turns._session(variant, books)
        session.scan_cache = ScanCache()
        for i, step in enumerate(steps):
            spent.clear()
            start = time.process_time()
            result = scan_turns._step(session, step)
            cpu[i].append(time.process_time() - start)
            for label, seconds in spent.items():
                phases[i][label].append(seconds)
            ok = ok and canonical(observed(session, result)) == expected[i]
    steady = scan_turns.warm(case, repeats=repeats)["steady"]["cpu_ms"]

    def ms(values: list[float]) -> float:
        return round(statistics.median(values) * 1000, 2)

    return {
        "machine": machine(),
        "steady_ms": steady,
        "turns": [
            {"turn": i + 1, "cpu_ms": ms(cpu[i]), **{k: ms(v) for k, v in phases[i].items()}}
            for i in range(len(steps))
        ],
        "ok": ok,
    }


def _marked(path: Path, *, turns: int) -> list[str]:
    """Run the steady scan and the turns, calling the marker (``os.getppid``) around each
    scan; return the label of each interval between markers (``""``: not counted)."""
    case = parse_json(path.read_bytes())
    labels: list[str] = []
    books = session_for(case).books
    cache = ScanCache()
    for k in range(5):  # two scans to warm the cache, then three steady ones
        session = scan_turns._session(case, books)
        session.scan_cache = cache
        os.getppid()
        labels.append("" if k < 2 else "steady")
        scan_turns._step(session, case["steps"][0])
    variant = scan_turns.timed_variant(case)
    chat = variant["chat"]
    books = session_for(variant).books
    session = scan_turns._session(variant, books)
    session.scan_cache = ScanCache()
    steps = [{"type": "normal"}] + [
        {"type": "normal", "append": [chat[-k]]} for k in range(1, turns)
    ]
    for i, step in enumerate(steps):
        os.getppid()
        labels.append(f"turn {i + 1}")
        scan_turns._step(session, step)
    os.getppid()
    labels.append("")
    return labels


def instructions(
    path: Path, *, turns: int, roots: dict[str, Path], cache: bool = False
) -> dict[str, dict[str, dict[str, int]]]:
    """Instructions (``Ir``) of each turn and of the steady scan (median of three) per
    checkout; with ``cache``, also the first-level cache misses (``L1``: I1mr + D1mr +
    D1mw)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind on PATH")
    out: dict[str, dict[str, dict[str, int]]] = {}
    for name, root in roots.items():
        env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
        with tempfile.TemporaryDirectory() as tmp:
            argv = [valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out"]
            argv += ["--cache-sim=yes"] if cache else []
            argv += ["--dump-before=getppid", sys.executable, __file__, "--marked"]
            argv += ["--large", str(path.resolve()), "--turns", str(turns)]
            done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
            labels = json.loads(done.stdout.splitlines()[-1])
            counts = [_totals(Path(tmp) / f"cg.out.{k}") for k in range(1, len(labels) + 1)]
        got: dict[str, list[dict[str, int]]] = defaultdict(list)
        for label, count in zip(labels, counts[1:], strict=False):  # dump 1: the set-up
            if label:
                got[label].append(count)
        out[name] = {
            label: {e: int(statistics.median(c[e] for c in v)) for e in v[0]}
            for label, v in got.items()
        }
    return out


def _totals(dump: Path) -> dict[str, int]:
    """``Ir`` (and ``L1`` misses, when simulated) of one callgrind dump: from marker k-1 to
    marker k for dump k."""
    lines = dump.read_text().splitlines()
    events = next(ln for ln in lines if ln.startswith("events:")).split()[1:]
    total = next(ln for ln in lines if ln.startswith("totals:")).split()[1:]
    got = dict(zip(events, map(int, total), strict=False))  # (trailing zeros are left out)
    out = {"Ir": got["Ir"]}
    if "D1mr" in events:
        out["L1"] = sum(got.get(e, 0) for e in ("I1mr", "D1mr", "D1mw"))
    return out


def render_instructions(
    got: dict[str, dict[str, dict[str, int]]], event: str = "Ir", unit: str = "M instr"
) -> list[str]:
    """One row per scan: millions of ``event`` per checkout, their ratio, and the last
    checkout's count against its steady scan."""
    names = list(got)
    lines = ["| scan | " + " | ".join(f"{n} ({unit})" for n in names) + " | ratio |"]
    lines.append("| --- " * (len(names) + 2) + "|")
    for label in got[names[0]]:
        cells = [got[n].get(label, {}).get(event, 0) / 1e6 for n in names]
        ratio = f"{cells[-1] / cells[0]:.2f}x" if len(cells) > 1 and cells[0] else ""
        steady = got[names[-1]].get("steady", {}).get(event, 0)
        ratio += f" ({got[names[-1]][label][event] / steady:.2f}x steady)" if steady else ""
        lines.append(f"| {label} | " + " | ".join(f"{c:.2f}" for c in cells) + f" | {ratio} |")
    return lines


def render(got: dict[str, Any]) -> list[str]:
    """The figures as Markdown: one row per turn, one column per phase."""
    labels = [label for _, _, label in PHASES]
    same = "yes" if got["ok"] else "NO"
    lines = [
        f"{got['machine']}; steady scan of the plain case: {got['steady_ms']} ms CPU; "
        + f"same results as the straightforward path: {same}",
        "| turn | CPU ms | x steady | " + " | ".join(labels) + " |",
        "| --- " * (len(labels) + 3) + "|",
    ]
    for row in got["turns"]:
        ratio = row["cpu_ms"] / got["steady_ms"] if got["steady_ms"] else 0.0
        cells = [f"{row.get(label, 0.0):g}" for label in labels]
        lines.append(f"| {row['turn']} | {row['cpu_ms']:g} | {ratio:.1f}x | " + " | ".join(cells))
    return lines


def _steady_scan(
    case: Any, books: Any, cache: ScanCache, step: dict[str, Any], out: list[tuple[float, float]]
) -> None:
    """The case's first step in a new session over the warm ``cache``, timed into ``out``
    (as ``scan_turns.warm`` times its steady scans)."""
    session = scan_turns._session(case, books)
    session.scan_cache = cache
    scan_turns._timed(lambda: scan_turns._step(session, step), out)


def twin(path: Path, *, turns: int, repeats: int) -> list[str]:
    """``--twin``: the CPU ms of each turn in session A and in session B (module doc), and
    the steady scan, timed after each turn so that a machine whose speed drifts moves both
    alike, as Markdown; B's results are checked against A's."""
    case, variant, steps = _turns(path, turns)
    books = session_for(variant).books
    plain_books, first = session_for(case).books, case["steps"][0]
    plain = ScanCache()
    for _ in range(2):  # the steady scan's cache, warm
        _steady_scan(case, plain_books, plain, first, [])
    got: dict[str, list[list[float]]] = {"A": [[] for _ in steps], "B": [[] for _ in steps]}
    steadies: list[tuple[float, float]] = []
    same = True
    for _ in range(repeats):
        cache = ScanCache()
        sessions = {}
        for name in got:
            sessions[name] = scan_turns._session(variant, books)
            sessions[name].scan_cache = cache
        for i, step in enumerate(steps):
            results = []
            for name, session in sessions.items():
                start = time.process_time()
                result = scan_turns._step(session, step)
                got[name][i].append(time.process_time() - start)
                results.append(canonical(observed(session, result)))
            same = same and results[0] == results[1]
            _steady_scan(case, plain_books, plain, first, steadies)
    steady = scan_turns._median(steadies)["cpu_ms"]
    lines = [
        f"{machine()}; steady {steady} ms CPU (a steady scan after each turn, median); "
        + f"B's results equal A's: {same}"
    ]
    lines += ["| turn | A (ms) | B (ms) | A - B | A, x steady | B, x steady |", "| --- " * 6 + "|"]
    for i in range(len(steps)):
        a, b = (statistics.median(got[n][i]) * 1000 for n in got)
        lines.append(
            f"| {i + 1} | {a:.2f} | {b:.2f} | {a - b:.2f} | {a / steady:.1f}x | {b / steady:.1f}x |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--large", type=Path, default=Path("golden/st-perf/large.json"))
    parser.add_argument("--turns", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--instructions", action="store_true", help="count, under valgrind")
    parser.add_argument("--base", type=Path, help="with --instructions: also this checkout")
    parser.add_argument("--cache", action="store_true", help="with --instructions: L1 misses")
    parser.add_argument("--twin", action="store_true", help="each turn in two sessions")
    parser.add_argument("--marked", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.marked:
        print(json.dumps(_marked(args.large, turns=max(2, args.turns))))
        return 0
    if args.twin:
        print("\n".join(twin(args.large, turns=max(2, args.turns), repeats=max(1, args.repeats))))
        return 0
    if args.instructions:
        roots = {"this": Path(__file__).resolve().parent.parent}
        if args.base is not None:
            roots = {"base": args.base.resolve(), **roots}
        counts = instructions(args.large, turns=max(2, args.turns), roots=roots, cache=args.cache)
        lines = render_instructions(counts)
        if args.cache:
            lines += ["", *render_instructions(counts, "L1", "M L1 misses")]
        print(json.dumps(counts) if args.json else "\n".join(lines))
        return 0
    got = measure(args.large, turns=max(2, args.turns), repeats=max(1, args.repeats))
    print(json.dumps(got, indent=1) if args.json else "\n".join(render(got)))
    return 0 if got["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
