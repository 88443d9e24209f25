"""The cost of regex keys, and what the compile cache saves. Run by hand, not in CI.

    .venv/bin/python bench/regex_keys.py [--keys N] [--repeat R] [--depth D]... [--case PATH]

The scan text is the chat of a SillyTavern case (default: the large performance case, 200
messages) joined the way the engine joins its buffer (``"\\x01"`` + messages joined by
``"\\n\\x01"``). N distinct regex keys, shaped like the ones shared lorebooks use, are each
compiled and tested once per round (the regex layer alone):

* ``uncached``: the compile cache is cleared before every round (compile + test per key);
* ``cached``: the cache is warm (test only), i.e. what every scan after the first pays.

Medians over R rounds, measured in the same run, and their ratio; at SillyTavern's usual scan
depth (a few messages, where compiling dominates) and over the whole chat (where matching does).

``bench_engine`` then runs the whole case through the engine (the golden runner's ``run_case``)
three ways: as it is, with the keys of every 10th entry rewritten as regex keys and the compile
cache cleared before each run, and the same with the cache warm. Case-level benchmarks live in
``BENCHES``; each takes the case path and returns printable lines.

``share_rows`` (``--share``, and all that ``--json`` prints) measures regex-heavy books: the
generated 5,000-entry book (``worldinfo.conformance.generate``, 200 messages, two turns) as it
is ("plain") and with 10 / 25 / 50 % of its entries' keys rewritten as regex keys of the shapes
shared books use (groups, alternation, counted repeats, lookarounds, ``i``/``u``/``m``/``s``).
Per row: the fast path steady (a session whose book is prepared and whose chat was seen) and
unseen (the caches of seen text dropped before every run), median ms per scan (wall and CPU),
the ratio to the plain book measured in the same run, and whether every result equals the
straightforward path's. Run it on another checkout side by side with
``PYTHONPATH=/that/checkout python bench/regex_keys.py --json``.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from worldinfo._js.regex import RegexKey, RegexTimeout, regex_key
from worldinfo.conformance.st import run_case

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CASE = ROOT / "golden" / "st-perf" / "large.json"

_TEMPLATES = (
    "/\\b(?:{a}|{b})s?\\b/i",
    "/\\b{a}(?:'s)?\\b/",
    "/(?<![\\w-]){a}(?![\\w-])/i",
    "/^.*\\b{a}\\b.*$/m",
    "/{a}.{{0,40}}{b}/is",
    "/\\p{{Lu}}{a}|{b}\\p{{Ll}}/u",
    "/(?:{a}|{b}){{2,3}}/iu",
    "/(?=.*{a})(?=.*{b})/is",
)


def scan_text(case: Path, *, depth: int | None = None) -> str:
    """The last ``depth`` messages (all by default) of ``case`` as the engine's scan buffer."""
    data = json.loads(case.read_text(encoding="utf-8"))
    chat = data["chat"] if depth is None else data["chat"][-depth:]
    messages = [f"{m.get('name', '')}: {m.get('mes', '')}" for m in reversed(chat)]
    return "\x01" + "\n\x01".join(messages)


def make_keys(text: str, n: int) -> list[str]:
    """``n`` distinct regex keys built from words of ``text`` (some match, most do not)."""
    words = sorted({w.strip("\x01.,:!?\"'()*").lower() for w in text.split()})
    words = [w for w in words if len(w) > 3 and w.isalnum()] + ["dragon", "wyrm", "drake"]
    keys: list[str] = []
    i = 0
    while len(keys) < n and i < 100 * n:
        a = words[i % len(words)]
        b = words[(i * 7 + 3) % len(words)] + ("zz" if i % 3 else "")
        key = _TEMPLATES[i % len(_TEMPLATES)].format(a=a, b=b)
        if key not in keys:
            keys.append(key)
        i += 1
    return keys


def _round(keys: Sequence[str], text: str, *, clear: bool) -> tuple[float, int]:
    if clear:
        regex_key.cache_clear()
    start = time.perf_counter()
    hits = 0
    for key in keys:
        rk = regex_key(key)
        try:
            hits += isinstance(rk, RegexKey) and rk.test(text)
        except RegexTimeout:
            hits -= 1_000_000  # shows up in the printed count
    return time.perf_counter() - start, hits


def bench_layer(case: Path, *, keys: int, repeat: int, depth: int | None) -> list[str]:
    """Compile + test ``keys`` regex keys over the case's scan text, uncached vs cached."""
    text = scan_text(case, depth=depth)
    key_list = make_keys(scan_text(case), keys)
    invalid = sum(regex_key(k) is None for k in key_list)
    uncached = [_round(key_list, text, clear=True) for _ in range(repeat)]
    _round(key_list, text, clear=False)
    cached = [_round(key_list, text, clear=False) for _ in range(repeat)]
    u = statistics.median(t for t, _ in uncached)
    c = statistics.median(t for t, _ in cached)
    n = len(key_list)
    return [
        f"scan depth {depth or 'all'}: {len(text)} chars from {case.name}; {n} regex keys "
        + f"({invalid} plain), {uncached[0][1]} match",
        f"uncached (compile + test): median {u * 1000:.2f} ms per scan ({u / n * 1e6:.1f} us/key)",
        f"cached   (test only):      median {c * 1000:.2f} ms per scan ({c / n * 1e6:.1f} us/key)",
        f"ratio uncached / cached: {u / c:.1f}x",
    ]


_ENGINE_TEMPLATES = ("/\\b{k}s?\\b/i", "/(?<![\\w-]){k}(?![\\w-])/", "/{k}|{k}zz/iu")


def with_regex_keys(case: dict[str, Any], *, every: int) -> dict[str, Any]:
    """A copy of ``case`` where every ``every``-th entry's keys are written as regex keys."""
    case = copy.deepcopy(case)
    n = 0
    for book in case["books"].values():
        entries = book["entries"]
        for i, uid in enumerate(sorted(entries, key=int)):
            if i % every:
                continue
            entry = entries[uid]
            keys = entry.get("key") or []
            entry["key"] = [
                _ENGINE_TEMPLATES[(i + j) % len(_ENGINE_TEMPLATES)].format(k=re.escape(k))
                for j, k in enumerate(keys)
            ]
            n += len(keys)
    case["_regex_keys"] = n
    return case


def _run_case(case: dict[str, Any], *, clear: bool) -> float:
    if clear:
        regex_key.cache_clear()
    start = time.perf_counter()
    for _ in run_case(case, str(case.get("name", "case"))):
        pass
    return time.perf_counter() - start


def bench_engine(path: Path, *, every: int = 10, repeat: int = 3) -> list[str]:
    """The engine on a whole case: plain keys vs some keys as regexes, cache cleared or warm."""
    plain = json.loads(path.read_text(encoding="utf-8"))
    rx = with_regex_keys(plain, every=every)
    base = statistics.median(_run_case(plain, clear=False) for _ in range(repeat))
    cold = statistics.median(_run_case(rx, clear=True) for _ in range(repeat))
    _run_case(rx, clear=False)
    warm = statistics.median(_run_case(rx, clear=False) for _ in range(repeat))
    steps = len(plain["steps"])
    return [
        f"engine on {path.name} ({steps} steps): {rx['_regex_keys']} keys of every {every}th "
        + "entry rewritten as regex keys",
        f"plain keys:                 median {base * 1000:.0f} ms per run",
        f"regex keys, cache cleared:  median {cold * 1000:.0f} ms per run ({cold / base:.2f}x)",
        f"regex keys, cache warm:     median {warm * 1000:.0f} ms per run ({warm / base:.2f}x)",
        f"ratio cleared / warm: {cold / warm:.2f}x",
    ]


_SHARE_TEMPLATES = (
    "/\\b{k}s?\\b/i",
    "/\\b(?:{k}|{k}zz)\\b/i",
    "/(?<![\\w-]){k}(?![\\w-])/",
    "/{k}(?:'s)?/",
    "/^.*\\b{k}\\b.*$/m",
    "/(?:{k}){{1,2}}/u",
    "/{k}.{{0,3}}/is",
    "/(?:the|a) {k}|{k}/i",
)
_WORDY = re.compile(r"[A-Za-z0-9 ]+")
BENCH_SCAN_BUDGET = 60.0
"""Regex seconds per scan in the share rows: the default (1 s) can run out on a loaded
machine while thousands of keys compile in a first scan, and a key skipped then is counted
as no match: results would depend on the machine's speed, not only on the book."""


def with_regex_share(case: dict[str, Any], *, percent: int) -> dict[str, Any]:
    """A copy of ``case`` where ``percent`` % of the entries have their word keys as regexes."""
    case = copy.deepcopy(case)
    for book in case["books"].values():
        for i, uid in enumerate(sorted(book["entries"], key=int)):
            if (i * percent) % 100 >= percent:
                continue
            entry = book["entries"][uid]
            entry["key"] = [
                _SHARE_TEMPLATES[(i + j) % len(_SHARE_TEMPLATES)].format(k=k)
                if isinstance(k, str) and _WORDY.fullmatch(k)
                else k
                for j, k in enumerate(entry.get("key") or [])
            ]
    return case


def _scans(case: dict[str, Any], books: Any, cache: Any) -> tuple[list[float], list[float], Any]:
    """Every step of ``case`` on a new session: wall and CPU seconds per scan, the records."""
    from worldinfo import RegexLimits
    from worldinfo._js import canonical
    from worldinfo.conformance.st import message, observed, session_for

    session = session_for(case)
    session.books = books
    session.scan_cache = cache
    session.regex_limits = RegexLimits(per_scan=BENCH_SCAN_BUDGET)
    wall, cpu, seen = [], [], []
    for step in case["steps"]:
        append = [message(m) for m in step.get("append") or ()]
        t, c = time.perf_counter(), time.process_time()
        result = session.generate(step.get("type", "normal"), append=append)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        seen.append(canonical(observed(session, result)))
    return wall, cpu, seen


def measure_share(case: dict[str, Any], *, repeats: int, check: bool) -> dict[str, Any]:
    """Steady and unseen medians (ms per scan, wall and CPU) of one book, and correctness."""
    from worldinfo.conformance.st import session_for
    from worldinfo.engine.fast.cache import ScanCache

    books = session_for(case).books
    cache = ScanCache()
    _, _, first = _scans(case, books, cache)
    same = True
    if check:
        same = _scans(case, books, None)[2] == first
    steady: tuple[list[float], list[float]] = ([], [])
    unseen: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for kind, forget in ((steady, False), (unseen, True)):
            if forget:
                cache.forget_lines()
            wall, cpu, seen = _scans(case, books, cache)
            same = same and seen == first
            kind[0].extend(wall)
            kind[1].extend(cpu)

    def ms(xs: list[float]) -> float:
        return round(statistics.median(xs) * 1000, 2)

    return {
        "steady_ms": ms(steady[0]),
        "steady_cpu_ms": ms(steady[1]),
        "unseen_ms": ms(unseen[0]),
        "unseen_cpu_ms": ms(unseen[1]),
        "activated": [len(r.get("activated") or ()) for r in first],
        "matches_straightforward": same if check else None,
    }


def share_rows(
    *,
    entries: int = 5000,
    repeats: int = 5,
    check: bool = True,
    shares: Sequence[int] = (0, 10, 25, 50),
) -> dict[str, Any]:
    """The regex-share rows: plain book and each share, side by side in one run."""
    from worldinfo.conformance import generate as gen

    plain = gen.case(name=f"share-{entries}", entries=entries, messages=200)
    out: dict[str, Any] = {"entries": entries, "messages": 200, "rows": {}}
    base = measure_share(plain, repeats=repeats, check=check)
    out["rows"]["plain"] = base
    for percent in shares:
        if percent == 0:
            continue
        row = measure_share(with_regex_share(plain, percent=percent), repeats=repeats, check=check)
        for field in ("steady_cpu_ms", "unseen_cpu_ms"):
            row[field.replace("_cpu_ms", "_growth")] = round(row[field] / base[field], 2)
        out["rows"][f"{percent}%"] = row
    return out


def machine() -> str:
    """CPUs, model, Python and the load average, for the printed figures."""
    import os
    import platform

    info = Path("/proc/cpuinfo")
    lines = info.read_text().splitlines() if info.exists() else []
    cpu = next((x.split(":", 1)[1].strip() for x in lines if "model name" in x), "")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{os.cpu_count()} CPUs, {cpu}, Python {platform.python_version()}, load {load}"


BENCHES: list[Callable[[Path], list[str]]] = [bench_engine]
"""Case-level benchmarks run after the layer benchmark."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks and print their figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--keys", type=int, default=200)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--case", type=Path, default=DEFAULT_CASE)
    p.add_argument(
        "--depth", type=int, action="append", help="messages scanned (repeatable; default 4, all)"
    )
    p.add_argument("--share", action="store_true", help="only the regex-share rows")
    p.add_argument("--json", action="store_true", help="the regex-share rows as one JSON object")
    p.add_argument("--no-check", action="store_true", help="skip the straightforward-path check")
    args = p.parse_args(argv)
    if args.share or args.json:
        rows = share_rows(repeats=min(args.repeat, 5), check=not args.no_check)
        rows["machine"] = machine()
        import worldinfo

        rows["code"] = str(Path(worldinfo.__file__).resolve().parent.parent)
        if args.json:
            print(json.dumps(rows))
        else:
            print(f"machine: {rows['machine']}; code: {rows['code']}")
            for name, row in rows["rows"].items():
                print(f"{name:>6}: {row}")
        ok = all(r["matches_straightforward"] is not False for r in rows["rows"].values())
        return 0 if ok else 1
    for depth in args.depth or [4, 0]:
        for line in bench_layer(args.case, keys=args.keys, repeat=args.repeat, depth=depth or None):
            print(line)
    for bench in BENCHES:
        for line in bench(args.case):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
