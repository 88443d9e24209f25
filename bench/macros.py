"""Macro evaluator cost inside a scan: the full evaluator against the ``{{user}}``/``{{char}}``
-only substituter, on the same case, side by side in one run.

Runs every step of the golden large case (``golden/st-perf/large.json``) with each
substituter, alternating, and prints the medians and their ratio: on fresh sessions (a
chat's first turn, plan building included) and repeated on one warm session per substituter
(later turns, where the evaluator's share of a scan is largest). The issue's
bound is a ratio of at most 1.2; on a shared machine compare the ratio of the best runs too
(noise only ever adds time). A second figure uses a variant of the case where every
tenth entry's content and first key carry macros, to show what keys with ``{{`` cost.

    python bench/macros.py
    python bench/macros.py --repeats 9 --json
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: base runs

from worldinfo._js import parse_json
from worldinfo.conformance.st import message, session_for
from worldinfo.macros import MacroContext
from worldinfo.session import Session

ROOT = Path(__file__).resolve().parent.parent
NOW = MacroContext().clock  # a fixed clock: the epoch


def _session(case: dict[str, Any], *, full: bool) -> Session:
    s = session_for(case)  # names-only substituter, as the WI oracle
    if full:
        return Session(
            books=s.books,
            settings=s.settings,
            global_books=s.global_books,
            character=s.character,
            persona=s.persona,
            chat=s.chat,
            chat_metadata=s.chat_metadata,
            max_context=s.max_context,
            rng=s.rng._rng,
            macro_context=MacroContext(clock=NOW),
        )
    return s


def _once(
    case: dict[str, Any], *, full: bool, session: Session | None = None
) -> tuple[float, list[Any]]:
    session = session or _session(case, full=full)
    total = 0.0
    seen = []
    for step in case["steps"]:
        append = [message(m) for m in step.get("append") or ()]
        t = time.perf_counter()
        result = session.generate(step.get("type", "normal"), append=append)
        total += time.perf_counter() - t
        seen.append(result.activated_keys)
    return total, seen


def _with_macros(case: dict[str, Any]) -> dict[str, Any]:
    case = copy.deepcopy(case)
    for book in case["books"].values():
        entries = book["entries"]
        for i, e in enumerate(entries.values() if isinstance(entries, dict) else entries):
            if i % 10 == 0:
                e["content"] = "{{char}} and {{user}}: " + str(e.get("content", ""))
                if e.get("key"):
                    e["key"][0] = str(e["key"][0]) + "{{char}}"
    return case


def measure(case: dict[str, Any], repeats: int, *, warm: bool = False) -> dict[str, Any]:
    """Medians (ms per step) with each substituter, alternating runs, and their ratio.

    ``warm``: each substituter keeps one session whose plan an untimed first run built; the
    timed runs repeat the steps on it (later turns of a chat: the evaluator's share of a
    scan is largest there). Otherwise every run starts a fresh session (a first turn).
    """
    names: list[float] = []
    full: list[float] = []
    same = True
    kept: dict[bool, Session | None] = {False: None, True: None}
    if warm:
        for kind in (False, True):
            kept[kind] = _session(case, full=kind)
            _once(case, full=kind, session=kept[kind])
    for _ in range(repeats):
        t0, a = _once(case, full=False, session=kept[False])
        t1, b = _once(case, full=True, session=kept[True])
        names.append(t0 * 1000 / len(case["steps"]))
        full.append(t1 * 1000 / len(case["steps"]))
        same = same and a == b
    n, f = statistics.median(names), statistics.median(full)
    return {
        "names_only_ms": round(n, 2),
        "full_ms": round(f, 2),
        "ratio": round(f / n, 3),
        "ratio_of_best": round(min(full) / min(names), 3),
        "same_activations": same,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large", default=str(ROOT / "golden/st-perf/large.json"))
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    case = parse_json(Path(args.large).read_bytes())
    out = {
        "large (first turn)": measure(case, args.repeats),
        "large (later turns)": measure(case, args.repeats, warm=True),
        "large_with_macros_in_10pct (first turn)": measure(_with_macros(case), args.repeats),
        "large_with_macros_in_10pct (later turns)": measure(
            _with_macros(case), args.repeats, warm=True
        ),
    }
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for name, r in out.items():
            print(
                f"{name}: names-only {r['names_only_ms']} ms/step, full evaluator "
                f"{r['full_ms']} ms/step, ratio {r['ratio']} (of the best runs "
                f"{r['ratio_of_best']}; same activations: {r['same_activations']})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
