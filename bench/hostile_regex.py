"""Hostile regex keys (issue 11): scan time with catastrophic keys, compile time of huge ones.

    .venv/bin/python bench/hostile_regex.py [--keys 300] [--session-keys 200] [--generations 3]

Run by hand, not in CI (timings depend on the machine). It measures, in one run:

* ``worldinfo scan`` (a real process) over a world file of N catastrophic regex keys,
  each distinct (``/(x|xx)+y<i>/``, exponential on a long run of ``x``), against a chat
  that holds such a run: wall time of the whole command;
* a ``Session`` over a book of M such keys: seconds per generation, first on a fresh text,
  then regenerating on the same text (the timed-out keys are not run again), then after a
  new message (a new text: the per-scan budget bounds it);
* compiling one alternation of 20,000 / 60,000 / 600,000 branches (``regex_key``, cache
  cleared): refused or compiled, and how long it took;
* the slowest compiles just inside the limits (adversarial atoms repeated);
* the longest warning line printed.

Each figure is printed next to the bound it is held to (``RegexLimits.per_scan``, the
issue's 2 s and 0.5 s), as a ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from worldinfo import Book, Message, Session
from worldinfo._js.regex import regex_key
from worldinfo.engine.regex_limits import DEFAULT_SCAN_BUDGET
from worldinfo.types import Entry

RUN = "x" * 40 + "!"


def catastrophic_world(n: int) -> dict[str, object]:
    """A world file whose every entry has one distinct catastrophic regex key."""
    entries = {
        str(i): {**Entry.new(i, key=[f"/(x|xx)+y{i}/"], content=f"entry {i}").data}
        for i in range(n)
    }
    return {"entries": entries}


def bench_cli(n: int, tmp: Path) -> list[str]:
    world = tmp / "hostile.json"
    world.write_text(json.dumps(catastrophic_world(n)))
    chat = tmp / "chat.json"
    chat.write_text(json.dumps([f"look: {RUN}"]))
    cmd = [sys.executable, "-m", "worldinfo", "scan", str(world), "--chat", str(chat)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    longest = max((len(line) for line in done.stdout.splitlines()), default=0)
    head = (
        f"worldinfo scan, {n} catastrophic keys: {took:.2f} s wall, {cpu:.2f} s CPU "
        f"(exit {done.returncode}); {took / 2:.2f} / {cpu / 2:.2f} of the 2 s bound"
    )
    return [head, f"  longest output line: {longest} characters"]


def bench_session(n: int, generations: int) -> list[str]:
    world = catastrophic_world(n)
    book = Book.from_json("hostile", world)
    chat = [Message(name="U", mes=f"look: {RUN}", is_user=True)]
    session = Session(books={"hostile": book}, global_books=["hostile"], chat=chat)
    lines = []
    for i in range(generations):
        kind = "regenerate" if i else "normal"
        start, cpu = time.perf_counter(), time.process_time()
        result = session.generate(kind)
        took, cpu = time.perf_counter() - start, time.process_time() - cpu
        lines.append(
            f"Session, {n} keys, generation {i + 1} ({kind}, same text): {took:.2f} s wall, "
            f"{cpu:.2f} s CPU; {took / DEFAULT_SCAN_BUDGET:.2f} x the per-scan budget; "
            f"{len(result.warnings)} warnings"
        )
    start, cpu = time.perf_counter(), time.process_time()
    session.generate(append=[Message(name="A", mes=f"again {RUN}")])
    took, cpu = time.perf_counter() - start, time.process_time() - cpu
    lines.append(
        f"Session, {n} keys, after a new message (new text): {took:.2f} s wall, {cpu:.2f} s CPU"
    )
    lines.append(f"  timeouts remembered: {len(session.regex_memo)}")
    return lines


def bench_compile() -> list[str]:
    lines = []
    for branches in (20_000, 60_000, 600_000):
        key = "/" + "|".join(f"w{i}x" for i in range(branches)) + "/i"
        regex_key.cache_clear()
        start = time.perf_counter()
        rk = regex_key(key)
        took = time.perf_counter() - start
        state = "plain" if rk is None else ("refused" if rk.refused else "compiled")
        lines.append(
            f"alternation of {branches} branches ({len(key)} chars): {state} in "
            f"{took * 1000:.1f} ms; {took / 0.5:.3f} of the 0.5 s bound"
        )
    return lines


ADVERSARIAL = {
    "dot, i flag": (".", "i"),
    "\\w, iu flags": ("\\w", "iu"),
    "\\p{L}, iu flags": ("\\p{L}", "iu"),
    "class, i flag": ("[a-y]", "i"),
    "group": ("(a)", ""),
    "group + backreference, i flag": ("(a)\\1", "i"),
    "two-letter branch": ("ab|", ""),
}


def bench_worst_accepted() -> list[str]:
    """The slowest compiles among keys just inside the limits: each atom repeated as often
    as the limits allow (the count shrinks by 10% until the key is accepted)."""
    lines = []
    for name, (atom, flags) in ADVERSARIAL.items():
        n = 100_000 // len(atom)
        while n > 1:
            key = f"/{atom * n}a/{flags}"
            regex_key.cache_clear()
            start, cpu = time.perf_counter(), time.process_time()
            rk = regex_key(key)
            took, cpu = time.perf_counter() - start, time.process_time() - cpu
            if rk is not None and rk.refused is None:
                lines.append(
                    f"just inside the limits, {name} x {n}: compiled in {took * 1000:.0f} ms "
                    f"wall, {cpu * 1000:.0f} ms CPU; {took / 0.5:.2f} of the 0.5 s bound"
                )
                break
            n = n * 9 // 10
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the three measurements and print them."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keys", type=int, default=300)
    ap.add_argument("--session-keys", type=int, default=200)
    ap.add_argument("--generations", type=int, default=3)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = bench_cli(args.keys, Path(tmp))
    out += bench_session(args.session_keys, args.generations)
    out += bench_compile()
    out += bench_worst_accepted()
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores (wall times stretch under load)")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
