"""Later turns of a chat on the fast path: sticky and cooldown records, a recursion pass that
overflows the budget (its candidates nominated as the budget reads them), books selected
twice, regex and macro keys past the point where the budget stops; every turn equal to the
straightforward path's, ``chat_metadata.timedWorldInfo`` included."""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from typing import Any

import pytest

from worldinfo._js import canonical
from worldinfo.conformance import generate as gen
from worldinfo.conformance.st import message, observed, session_for
from worldinfo.engine.fast import candidates
from worldinfo.engine.timed_effects import normalise


def timed_case(seed: int) -> dict[str, Any]:
    """A generated case whose recursion pass overflows the budget, with sticky, cooldown
    and probability entries, over five turns."""
    rng = random.Random(seed)
    c = gen.case(name=f"t{seed}", entries=rng.choice((200, 400)), messages=20, seed=seed, steps=5)
    entries = list(c["books"]["Bench"]["entries"].values())
    for i, e in enumerate(entries):
        if i % 7 == 0:
            e["sticky"] = rng.choice((1, 2, 3))
        if i % 11 == 0:
            e["cooldown"] = rng.choice((1, 2, 4))
        if i % 13 == 0:
            e["useProbability"], e["probability"] = True, 60
        if seed % 3 == 1 and i % 17 == 0:  # regex keys, some far past the budget
            e["key"] = [f"/{e['key'][0]}|zz{i}/i"]
        if seed % 3 == 2 and i % 19 == 0:  # a macro in a key: the substituter is called
            e["key"] = [*e["key"], "{{random:a,b}}"]
    c["settings"]["budget"] = rng.choice((2, 4, 8))
    c["settings"]["depth"] = rng.choice((2, 4))
    if seed % 4 == 0:  # the same book twice: two objects under every key
        c["global_books"] = ["Bench", "Bench"]
    return c


def lazy_case(seed: int) -> dict[str, Any]:
    """``timed_case`` without what keeps a pass from nominating its candidates as the budget
    reads them (``candidates.lazy_ok``): inclusion groups, ``ignoreBudget``, delay levels."""
    c = timed_case(seed)
    for e in c["books"]["Bench"]["entries"].values():
        for name in ("group", "ignoreBudget", "delayUntilRecursion"):
            e.pop(name, None)
    return c


def turns(case: Mapping[str, Any], *, fast: bool) -> list[Any]:
    session = session_for(case)
    if not fast:
        session.scan_cache = None
    out = []
    for step in case["steps"]:
        result = session.generate(
            step["type"], append=[message(m) for m in step.get("append") or ()]
        )
        out.append(canonical(observed(session, result)))
    return out


@pytest.mark.parametrize("seed", range(16))
def test_later_turns_equal_straightforward(seed: int) -> None:
    case = timed_case(seed)
    fast = turns(case, fast=True)
    assert fast == turns(case, fast=False)
    timed = [t.get("chat_metadata", {}).get("timedWorldInfo", {}) for t in fast]
    assert any(t.get("sticky") for t in timed)  # the case exercises records


@pytest.mark.parametrize("seed", range(16))
def test_lazy_later_turns_equal_straightforward(seed: int) -> None:
    case = lazy_case(seed)
    assert turns(case, fast=True) == turns(case, fast=False)


@pytest.mark.parametrize("new_objects", [1, 3])
@pytest.mark.parametrize("seed", range(0, 16, 3))
def test_chunks_cut_at_new_objects_equal_straightforward(
    seed: int, new_objects: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk of candidates stops before the first entry the scan's list lacks, then takes
    ``NEW_OBJECTS`` of them: with one or three a turn cuts many chunks, at positions that
    move from turn to turn as the plan builds more; the candidates stay the same."""
    monkeypatch.setattr(candidates, "NEW_OBJECTS", new_objects)
    case = lazy_case(seed)
    assert turns(case, fast=True) == turns(case, fast=False)


def test_overflowing_recursion_pass_leaves_the_rest_unbuilt() -> None:
    """The candidates past the overflow are not nominated: their entries are not built."""
    case = timed_case(5)
    session = session_for(case)
    cache = session.scan_cache
    assert cache is not None
    session.generate("normal")
    plans = list(cache._plans.values())  # the plan this scan built
    assert len(plans) == 1
    made = plans[0].entries.made
    assert 0 < sum(e is not None for e in made) < len(made)


def test_lazy_candidates_pick_positions_only_as_far_as_the_budget_reads() -> None:
    """A lazy pass that overflows picks the visited positions from the mask a window at a
    time (``Visit.ahead``): the rest of the mask is never read, nor the whole list made."""
    session = session_for(lazy_case(0))
    cache = session.scan_cache
    assert cache is not None
    session.generate("normal")
    (plan,) = cache._plans.values()
    visits = plan.facts.visits.values()
    assert any(0 < v.upto < len(v.mask) and 0 < len(v.head) < v.count for v in visits)


def _containers(value: Any) -> list[Any]:
    """Every dict and list inside ``value``, itself included."""
    if isinstance(value, dict):
        return [value, *(c for v in value.values() for c in _containers(v))]
    if isinstance(value, list):
        return [value, *(c for v in value for c in _containers(v))]
    return []


@pytest.mark.parametrize(
    "state",
    [
        {"sticky": {"B.1": {"hash": 5, "start": 1, "end": 3.0, "protected": False}}},
        {"sticky": {"B.1": {"hash": None, "start": "1"}}, "cooldown": {}, "other": {}},
        {"sticky": {"B.1": {"hash": 5, "tags": ["a"]}}, "cooldown": {"B.2": {"hash": 6}}},
        {"sticky": [{"hash": 5}], "cooldown": {"B.2": 0}, "x": [1, {"y": 2}]},
    ],
)
def test_normalise_copies_like_deepcopy(state: dict[str, Any]) -> None:
    before = copy.deepcopy(state)
    out = normalise(state)
    assert out == normalise(copy.deepcopy(state))
    assert state == before
    mine = {id(c) for c in _containers(state)}
    assert not any(id(c) in mine for c in _containers(out))  # no list or dict shared
