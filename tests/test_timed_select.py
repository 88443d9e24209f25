"""Selecting entries with running timed effects on the fast path (``passes._select_plain``:
sticky, cooling and delayed entries read by position) gives the straightforward path's
results, turn after turn, ``timedWorldInfo`` included."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo._js import canonical
from worldinfo.conformance import generate as gen
from worldinfo.conformance.st import message, observed, session_for


def _case(seed: int, *, share: int) -> dict[str, Any]:
    """A generated case where about one entry in ``share`` has each timed field."""
    rng = random.Random(seed)
    case = gen.case(name=f"t{seed}", entries=rng.choice((40, 120)), messages=12, seed=seed)
    for e in case["books"]["Bench"]["entries"].values():
        for name in ("sticky", "cooldown", "delay"):
            if rng.randrange(share) == 0:
                e[name] = rng.choice((1, 2, 3, 14))
        if rng.randrange(share * 2) == 0:
            e["constant"] = True
    extra = gen.chat(6, seed + 100, vocab=120)
    case["steps"] = [{"type": "normal"}] + [{"type": "normal", "append": [m]} for m in extra]
    return case


def _run(case: dict[str, Any], *, fast: bool) -> list[Any]:
    session = session_for(case)
    if not fast:
        session.scan_cache = None
    out = []
    for i, step in enumerate(case["steps"]):
        force = [("Bench", i * 5)] if i == 3 else []
        append = [message(m) for m in step.get("append") or ()]
        result = session.generate(step["type"], append=append, force_activate=force)
        out.append(canonical(observed(session, result)))
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), share=st.sampled_from((2, 4, 8)))
def test_timed_turns_fast_equal_straightforward(seed: int, share: int) -> None:
    case = _case(seed, share=share)
    assert _run(case, fast=True) == _run(case, fast=False)
