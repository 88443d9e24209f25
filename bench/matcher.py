"""Key matching alone: the key index against raw Aho-Corasick on the same text, one run.

The keys are those of ``golden/st-perf/large.json``'s book (5,000 entries x 3 keys), as the
fast path registers them (R24: trimmed, lower-cased unless case-sensitive, whole-word when
the setting applies to a one-word key); the text is the chat's 200 messages as the scan
buffer holds them (``name: message``). Timed, median of ``--repeats`` runs, CPU time
(``time.process_time``) beside wall time:

- ``index``: ``KeyIndex.found_all`` over the messages, the line cache dropped first (unseen
  text), and again with it warm (steady);
- ``raw``: one ``pyahocorasick`` automaton of the same needle texts run over each
  lower-cased message, every reported value collected (no whole-word test, no cache), and
  the same over the messages joined into one text;
- ``build``: registering the 15,000 keys and building the automata (the first time in the
  process, and the median of later builds, which may reuse caches such as ``regex``'s
  compiled patterns), against building the raw automaton.

``--whole-words`` turns the whole-word setting on (every one-word key then needs the
boundary test). The index's result is checked against ``match_key``'s own rule
(``whole_word_in`` / substring) for every key and message before anything is timed.
``--base DIR`` runs the same measurement on another checkout (e.g. ``/work/wt/base``) in a
child process right after, and prints the ratio.

    python bench/matcher.py
    python bench/matcher.py --whole-words --base /work/wt/base --json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from operator import itemgetter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _code(path: str | None) -> None:
    """Import ``worldinfo`` from ``path`` (another checkout) or from this repository (after
    ``PYTHONPATH``, so that ``PYTHONPATH=<checkout>`` measures that checkout)."""
    if path:
        sys.path.insert(0, str(Path(path).resolve()))
    else:
        sys.path.append(str(ROOT))


def median_ms(fn: Callable[[], object], repeats: int) -> dict[str, float]:
    """Median CPU and wall milliseconds of ``fn`` over ``repeats`` calls."""
    cpu, wall = [], []
    for _ in range(repeats):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return {
        "cpu_ms": round(statistics.median(cpu) * 1000, 3),
        "wall_ms": round(statistics.median(wall) * 1000, 3),
    }


def load(case_path: Path, *, whole_words: bool) -> tuple[list[Any], list[str]]:
    """The needles of the case's book (in registration order) and its scan messages."""
    from worldinfo import _js
    from worldinfo._js import parse_json
    from worldinfo.engine import entry_rules
    from worldinfo.engine.fast.matcher import Needle
    from worldinfo.types import Settings

    case = parse_json(case_path.read_text(encoding="utf-8"))
    fields = dict(case["settings"], match_whole_words=whole_words)
    settings = Settings(**fields)
    needles = []
    for book in case["books"].values():
        for entry in book["entries"].values():
            for key in [*(entry.get("key") or ()), *(entry.get("keysecondary") or ())]:
                text = _js.trim(key)
                lowered = not entry_rules.case_sensitive(entry, settings)
                text = _js.lower(text) if lowered else text
                word = entry_rules.whole_words(entry, settings) and entry_rules.one_word(text)
                needles.append(Needle(text=text, lowered=lowered, whole_word=word))
    named = settings.include_names
    texts = [_js.trim(f"{m['name']}: {m['mes']}" if named else m["mes"]) for m in case["chat"]]
    return needles, texts


def check(index: Any, needles: list[Any], ids: list[int], texts: list[str]) -> int:
    """Raise unless the index finds exactly what ``match_key``'s rule finds; the hit count."""
    from worldinfo import _js
    from worldinfo.engine.buffer import whole_word_in

    hits = 0
    for text in texts:
        got = index.found_text(text)
        lowered = _js.lower(text)
        for nid, n in zip(ids, needles, strict=True):
            hay = lowered if n.lowered else text
            want = whole_word_in(hay, n.text) if n.whole_word else n.text in hay
            if (nid in got) != want:
                raise SystemExit(f"mismatch: {n} in {text!r}: index {nid in got}, rule {want}")
            hits += want
    return hits


def measure(case_path: Path, *, whole_words: bool, repeats: int) -> dict[str, Any]:
    """Build and match times of the index and of raw Aho-Corasick, checked first."""
    import ahocorasick  # type: ignore[import-not-found,unused-ignore]

    from worldinfo import _js
    from worldinfo.engine.fast.matcher import KeyIndex

    needles, texts = load(case_path, whole_words=whole_words)

    def build() -> Any:
        index = KeyIndex()
        ids = [index.add(n) for n in needles]
        index.freeze()
        index.found("")  # the first lookup finishes any lazy preparation
        return index, ids

    cpu = time.process_time()
    index, ids = build()
    first_build = round((time.process_time() - cpu) * 1000, 3)
    hits = check(index, needles, ids, texts)
    words = list(dict.fromkeys(n.text for n in needles))

    def raw_build() -> Any:
        auto = ahocorasick.Automaton()
        for i, w in enumerate(words):
            auto.add_word(w, i)
        auto.make_automaton()
        return auto

    auto = raw_build()
    second = itemgetter(1)

    def unseen() -> object:
        index.forget_lines()
        return index.found_all(texts)

    def raw() -> object:
        out: set[int] = set()
        for text in texts:
            out.update(map(second, auto.iter(_js.lower(text))))
        return out

    def raw_joined() -> object:
        return set(map(second, auto.iter(_js.lower("\n".join(texts)))))

    out: dict[str, Any] = {
        "keys": len(needles),
        "distinct": len(words),
        "messages": len(texts),
        "chars": sum(map(len, texts)),
        "whole_words": whole_words,
        "hits_checked": hits,
    }
    for _ in range(3):  # warm up every path, interleaved
        unseen(), raw(), raw_joined()
    # Interleave the three so that load from other jobs falls on each alike.
    rounds: dict[str, list[dict[str, float]]] = {"unseen": [], "raw": [], "raw_joined": []}
    for _ in range(5):
        rounds["unseen"].append(median_ms(unseen, repeats))
        rounds["raw"].append(median_ms(raw, repeats))
        rounds["raw_joined"].append(median_ms(raw_joined, repeats))
    for name, got in rounds.items():
        out[name] = {k: round(statistics.median(r[k] for r in got), 3) for k in got[0]}
    index.found_all(texts)
    out["steady"] = median_ms(lambda: index.found_all(texts), repeats)
    out["first_build_cpu_ms"] = first_build
    out["build"] = median_ms(build, max(3, repeats // 10))
    out["raw_build"] = median_ms(raw_build, max(3, repeats // 10))
    cpu = out["unseen"]["cpu_ms"]
    out["ratio_to_raw"] = round(cpu / out["raw"]["cpu_ms"], 2)
    out["ratio_to_raw_joined"] = round(cpu / out["raw_joined"]["cpu_ms"], 2)
    return out


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, measure, print (text or ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--case", type=Path, default=ROOT / "golden/st-perf/large.json")
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--whole-words", action="store_true")
    parser.add_argument("--base", help="another checkout to measure the same way, after")
    parser.add_argument("--code", help=argparse.SUPPRESS)  # the checkout to import from
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    _code(args.code)
    import worldinfo

    result: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load": [round(x, 2) for x in os.getloadavg()],
        },
        "code": str(Path(worldinfo.__file__).parent.parent),
        "run": measure(args.case, whole_words=args.whole_words, repeats=args.repeats),
    }
    if args.base:
        cmd = [sys.executable, __file__, "--json", "--code", args.base, "--case", str(args.case)]
        cmd += ["--repeats", str(args.repeats)] + (["--whole-words"] if args.whole_words else [])
        base = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        result["base"] = base["run"]
        result["speedup_unseen_vs_base"] = round(
            base["run"]["unseen"]["cpu_ms"] / result["run"]["unseen"]["cpu_ms"], 1
        )
        result["speedup_build_vs_base"] = round(
            base["run"]["build"]["cpu_ms"] / result["run"]["build"]["cpu_ms"], 1
        )
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"machine: {result['machine']}")
    for label in ("run", "base"):
        r = result.get(label)
        if r is None:
            continue
        print(f"{label} ({result['code'] if label == 'run' else args.base}):")
        print(
            f"  {r['keys']} keys ({r['distinct']} distinct), {r['messages']} messages, "
            f"{r['chars']} chars, whole words {r['whole_words']}; {r['hits_checked']} hits checked"
        )
        for name in ("unseen", "steady", "raw", "raw_joined", "build", "raw_build"):
            print(f"  {name:<11} {r[name]['cpu_ms']:8.3f} ms CPU {r[name]['wall_ms']:8.3f} ms wall")
        print(f"  first build {r['first_build_cpu_ms']:8.3f} ms CPU")
        print(f"  unseen / raw: {r['ratio_to_raw']}x; / raw joined: {r['ratio_to_raw_joined']}x")
    if args.base:
        print(
            f"vs base: unseen {result['speedup_unseen_vs_base']}x faster, "
            f"build {result['speedup_build_vs_base']}x faster"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
