"""The scaling table of ``bench/scan.py --scaling`` (issue 13, point 7), and the summary
table of ``--table --markdown`` as the README's "Speed" section prints it.

Three series of generated books (``worldinfo.conformance.generate``), each row measured in
this one run and checked against the straightforward path (``scan_cache = None``: every
entry and every key over the whole scan text on every pass) where that path finishes in
reasonable time (``--check-all`` checks every row):

- entries: 1k / 5k / 20k / 50k entries, 200 messages, depth 10, recursion;
- messages: 100 / 1,000 / 10,000 messages, 5,000 entries, depth = messages, no recursion
  (SillyTavern's scan buffer holds at most 1,000 messages: a longer chat scans its newest
  1,000);
- regex share: 0 / 10 / 25 / 50 % of the 5k book's entries with their word keys rewritten
  as regex keys (``bench/regex_keys.with_regex_share``: the shapes shared books use).

Per row, milliseconds of CPU time (``time.process_time``) per scan, medians: "first" is the
first scan on a fresh ``ScanCache`` once the book is loaded (plan build + unseen text),
"unseen" a prepared book with the per-line key cache dropped before each run, "steady" a
prepared book over seen text. "growth" divides a row by the row before it (entries,
messages) or by the 0 % row (regex share), beside the growth of the size. Every session gets
a 60 s regex budget per scan (``regex_keys.BENCH_SCAN_BUDGET``): with the default 1 s the
first scan of a big regex book can run out on a loaded machine, and its result would depend
on the machine's speed.

The run is bounded by its fixed sizes: 611 s on the 2-vCPU machine at load average 6-9,
most of it the straightforward runs and the plan builds; ``--check-all`` adds the 50k
book's two straightforward scans (about 100 s each at that load).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import regex_keys  # bench/ is the script's directory

import worldinfo
from worldinfo._js import canonical
from worldinfo.conformance import generate as gen
from worldinfo.conformance.st import message, observed, session_for
from worldinfo.engine.fast.cache import ScanCache

Case = Mapping[str, Any]
ST_MS = 300.0  # SillyTavern's own engine per scan of large.json (measured earlier)
machine = regex_keys.machine  # CPUs, model, Python, load average, as bench/scan.py prints
UNCHECKED = {("entries", 50000)}  # the straightforward path takes minutes (about 100 s a scan)


def _entries(n: int) -> dict[str, Any]:
    return gen.case(name=f"e{n}", entries=n, messages=200)


def _messages(m: int) -> dict[str, Any]:
    return gen.case(name=f"m{m}", entries=5000, messages=m, depth=m, recursive=False)


def _regex(percent: int) -> dict[str, Any]:
    return regex_keys.with_regex_share(_entries(5000), percent=percent)


# name, what a row is, sizes, the size's unit, the case, whether growth is against row 0
SERIES: tuple[tuple[str, str, tuple[int, ...], str, Callable[[int], Any], bool], ...] = (
    (
        "entries",
        "200 messages, depth 10, recursion",
        (1000, 5000, 20000, 50000),
        "",
        _entries,
        False,
    ),
    ("messages", "5,000 entries, depth = messages", (100, 1000, 10000), "", _messages, False),
    ("regex share", "5,000 entries, 200 messages", (0, 10, 25, 50), " %", _regex, True),
)


def _run(case: Case, books: Any, cache: ScanCache | None, out: list[float]) -> list[Any]:
    """Every step on a new session; CPU seconds per scan appended to ``out``; the records."""
    from worldinfo import RegexLimits

    session = session_for({**case, "books": {}})
    session.books = dict(books)
    session.scan_cache = cache
    session.regex_limits = RegexLimits(per_scan=regex_keys.BENCH_SCAN_BUDGET)
    seen = []
    for step in case["steps"]:
        append = [message(m) for m in step.get("append") or ()]
        c = time.process_time()
        result = session.generate(step.get("type", "normal"), append=append)
        out.append(time.process_time() - c)
        seen.append(canonical(observed(session, result)))
    return seen


def _ms(xs: list[float]) -> float:
    return round(statistics.median(xs) * 1000, 2)


def measure(case: Case, *, repeats: int, check: bool) -> dict[str, Any]:
    """first / unseen / steady / straightforward medians (CPU ms per scan) and correctness."""
    books = session_for(case).books
    first: list[float] = []
    cache = ScanCache()
    fast: list[Any] = []
    agree = True
    for i in range(3):
        cache = ScanCache()
        seen = _run(case, books, cache, first)
        agree = agree and (i == 0 or seen == fast)
        fast = seen
    first = first[:: len(case["steps"])]  # the first step of each fresh cache
    row: dict[str, Any] = {"first_ms": _ms(first), "same": agree}
    if check:
        reference: list[float] = []
        row["same"] = _run(case, books, None, reference) == fast
        row["straightforward_ms"] = _ms(reference)
    steady: list[float] = []
    unseen: list[float] = []
    for _ in range(repeats):
        row["same"] = row["same"] and _run(case, books, cache, steady) == fast
        cache.forget_lines()
        row["same"] = row["same"] and _run(case, books, cache, unseen) == fast
    row.update(unseen_ms=_ms(unseen), steady_ms=_ms(steady), checked=check)
    row["activated"] = [len(r.get("activated") or ()) for r in fast]
    row["loops"] = [r.get("scan_loops") for r in fast]
    return row


def scaling(*, repeats: int, check_all: bool, log: Callable[[str], None]) -> dict[str, Any]:
    """Every row of every series, measured in this process."""
    out: dict[str, Any] = {"machine": machine(), "code": code_label(), "series": []}
    started = time.perf_counter()
    for name, what, sizes, unit, make, against_first in SERIES:
        rows: list[dict[str, Any]] = []
        for size in sizes:
            check = check_all or (name, size) not in UNCHECKED
            row = {"size": size, **measure(make(size), repeats=repeats, check=check)}
            base = rows[0] if against_first and rows else rows[-1] if rows else None
            if base is not None:
                for field in ("unseen_ms", "steady_ms"):
                    row[field.replace("_ms", "_growth")] = round(row[field] / base[field], 2)
                if not against_first:
                    row["size_growth"] = round(size / base["size"], 1)
            rows.append(row)
            log(f"{name} {size}{unit}: {row}")
        out["series"].append({"name": name, "what": what, "unit": unit, "rows": rows})
    out["seconds"] = round(time.perf_counter() - started)
    out["machine_after"] = machine()
    out["ok"] = all(r["same"] for s in out["series"] for r in s["rows"])
    return out


def code_label() -> str:
    """The commit of the code measured (``+changes`` when ``worldinfo/`` or ``bench/`` differ
    from it), or its path."""
    root = Path(worldinfo.__file__).resolve().parent.parent

    def git(*args: str) -> str:
        cmd = ["git", "-C", str(root), *args]
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD")
        # the code measured; a README edit is no change
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", "worldinfo", "bench")
    except (OSError, subprocess.CalledProcessError):
        return str(root)
    return f"commit {head}{' +changes' if dirty else ''}"


def _ms_text(value: float) -> str:
    """Milliseconds to three significant figures or so: 2,994 / 50.4 / 1.27."""
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _x(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}x"


def scaling_markdown(got: Mapping[str, Any]) -> list[str]:
    """The scaling table as Markdown, with the run's machine, load and commit."""
    lines = [
        (
            f"Measured by `python bench/scan.py --scaling` in one run of {got['seconds']} s on "
            f"{got['code']}; {got['machine']} (after: load {got['machine_after'].split('load ')[-1]}). "
            "CPU-time medians, ms per scan."
        ),
        "",
        (
            "| series | size | first scan | unseen | steady | growth: size / unseen / steady "
            "| straightforward | same results | loops, activated |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in got["series"]:
        for i, r in enumerate(s["rows"]):
            label = f"{s['name']} ({s['what']})" if i == 0 else ""
            if "unseen_growth" not in r:
                growth = "base" if i == 0 else ""
            else:
                size = f"{r['size_growth']:g}x" if "size_growth" in r else "vs 0 %"
                growth = f"{size} / {_x(r['unseen_growth'])} / {_x(r['steady_growth'])}"
            ref = _ms_text(r["straightforward_ms"]) if r["checked"] else "not run"
            same = ("yes" if r["same"] else "NO") if r["checked"] else "(repeats agree)"
            loops, activated = r.get("loops", ()), r["activated"]
            shape = ", ".join(f"{a}: {b}" for a, b in zip(loops, activated, strict=False))
            lines.append(
                f"| {label} | {r['size']:,}{s['unit']} | {_ms_text(r['first_ms'])} "
                f"| {_ms_text(r['unseen_ms'])} | {_ms_text(r['steady_ms'])} | {growth} | {ref} "
                f"| {same} | {shape} |"
            )
    return lines


SUMMARY = (  # label, (group, key), target, SillyTavern / now shown
    ("cold: bytes -> first `ScanResult`, fresh process", ("cold", "total_ms"), 150.0, True),
    ("of which loading (`parse_json` + `Book`)", ("cold", "load_ms"), None, False),
    ("of which the first scan", ("cold", "first_ms"), None, False),
    (
        "loading / stdlib `json.loads` (geometric mean, both orders)",
        ("cold", "load_ratio"),
        2.0,
        False,
    ),
    ("first scan, book loaded (plan build + unseen text)", ("first", "cpu_ms"), 25.0, True),
    ("unseen text, book prepared", ("unseen", "cpu_ms"), 5.0, True),
    ("steady (turn after turn)", ("steady", "cpu_ms"), 3.5, True),
    ("next turn: the first to read sticky/cooldown records", ("next_turn", "cpu_ms"), None, True),
    ("the turn after", ("turn_after", "cpu_ms"), None, True),
)


def summary_markdown(new: Mapping[str, Any], old: Mapping[str, Any] | None) -> list[str]:
    """The README's summary table: now, the base checkout, targets, SillyTavern / now."""
    steady = new["steady"]["cpu_ms"]
    lines = [
        "| large.json (CPU ms) | now | base | base / now | target | SillyTavern / now |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for label, (group, key), target, vs_st in SUMMARY:
        a = new[group][key]
        b = old[group][key] if old is not None else None
        ratio = f"{b / a:.1f}x" if b is not None and a else ""
        if target is None and group in ("next_turn", "turn_after"):
            aim = f"2x steady: {a / steady:.1f}x, {'met' if a <= 2 * steady else 'not reached'}"
        elif target is None:
            aim = ""
        else:
            shown = f"{target:g}x" if key == "load_ratio" else f"{target:g} ms"
            aim = f"{shown}: {'met' if a <= target else 'not reached'}"
        st = f"{ST_MS / a:.1f}x" if vs_st and a and ST_MS / a < 10 else ""
        st = st or (f"{ST_MS / a:.0f}x" if vs_st and a else "")
        shown_a = f"{a:g}x" if key == "load_ratio" else f"{a:g}"
        shown_b = "" if b is None else f"{b:g}x" if key == "load_ratio" else f"{b:g}"
        lines.append(f"| {label} | {shown_a} | {shown_b} | {ratio} | {aim} | {st} |")
    return lines


def main_scaling(args: argparse.Namespace) -> int:
    """``--scaling``: print the rows as they come (or ``--json``), then the Markdown table."""

    def log(line: str) -> None:  # progress; on stderr when the table is to be pasted
        if not args.json:
            print(line, flush=True, file=sys.stderr if args.markdown else sys.stdout)

    got = scaling(repeats=min(args.repeats, 5), check_all=args.check_all, log=log)
    if args.json:
        print(json.dumps(got))
    elif args.markdown:
        print("\n".join(scaling_markdown(got)))
    else:
        print(f"machine: {got['machine']}; after: {got['machine_after']}; code: {got['code']}")
        print(f"{got['seconds']} s; " + ("all results match" if got["ok"] else "MISMATCH"))
    return 0 if got["ok"] else 1
