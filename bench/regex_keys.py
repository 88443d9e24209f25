"""The cost of regex keys, and what the compile cache saves. Run by hand, not in CI.

    .venv/bin/python bench/regex_keys.py [--keys N] [--repeat R] [--depth D]... [--case PATH]

The scan text is the chat of a SillyTavern case (default: the large performance case, 200
messages) joined the way the engine joins its buffer (``"\\x01"`` + messages joined by
``"\\n\\x01"``). N distinct regex keys, shaped like the ones shared lorebooks use, are each
compiled and tested once per round:

* ``uncached``: the compile cache is cleared before every round (compile + test per key);
* ``cached``: the cache is warm (test only), i.e. what every scan after the first pays.

Medians over R rounds, measured in the same run, and their ratio; at SillyTavern's usual scan
depth (a few messages, where compiling dominates) and over the whole chat (where matching does). Further benchmarks (the
engine's large case with regex keys added: ``bench_engine(path)``) append themselves to
``BENCHES``; each takes the case path and returns printable lines.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from worldinfo._jsregex import RegexKey, RegexTimeout, regex_key

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


BENCHES: list[Callable[[Path], list[str]]] = []
"""Case-level benchmarks run after the layer benchmark (e.g. ``bench_engine``)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks and print their figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--keys", type=int, default=200)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--case", type=Path, default=DEFAULT_CASE)
    p.add_argument(
        "--depth", type=int, action="append", help="messages scanned (repeatable; default 4, all)"
    )
    args = p.parse_args(argv)
    for depth in args.depth or [4, 0]:
        for line in bench_layer(args.case, keys=args.keys, repeat=args.repeat, depth=depth or None):
            print(line)
    for bench in BENCHES:
        for line in bench(args.case):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
