"""Fast path == straightforward path on mutated golden cases (odd field values included).

Each case is a golden case with random entry fields and settings replaced from a pool of
values SillyTavern users' files really contain (strings for numbers, null, unknown
positions, bad triggers, regex keys ...). ``WORLDINFO_MUTATIONS`` sets how many (default 150).
"""

from __future__ import annotations

import copy
import json
import os
import random
from typing import Any

import pytest

from golden import case_files, mutation_params
from worldinfo._js import parse_json
from worldinfo.conformance.st import generate_step, observed, session_for

POOL: dict[str, list[Any]] = {
    "key": [
        ["dragon"],
        ["Dragon", "forest"],
        [" "],
        [""],
        ["/drag(on)?/i"],
        ["/^x/m"],
        ["{{char}}"],
        ["moon we"],
        ["/\\bking\\b/"],
        ["ice storm", "/wolf|orc/"],
        [],
        "dragon",
        ["a"],
        ["{{char}}/drag(on)?/i"],
    ],
    "keysecondary": [[], ["forest"], ["knight", "witch"], ["/old/"], [" "], "fire"],
    "selectiveLogic": [0, 1, 2, 3, "0", 7, None],
    "selective": [True, False],
    "constant": [True, False, False, False],
    "disable": [False, False, True, 1, "1", "true"],
    "order": [100, 10, 200, "7", None, 100.5, -3],
    "position": [0, 1, 2, 3, 4, 5, 6, 7, "1", None],
    "probability": [100, 50, 0, "100", None, 10],
    "useProbability": [True, False],
    "group": ["", "g1", "g1,g2", "g2", "2", "10", "g1, g2"],
    "groupOverride": [False, True],
    "groupWeight": [100, 50, 0, None, 300],
    "useGroupScoring": [None, True, False],
    "sticky": [None, 0, 1, 2, 3],
    "cooldown": [None, 0, 1, 2],
    "delay": [None, 0, 2, 5, "3"],
    "delayUntilRecursion": [0, False, True, 1, 2, 3, "2"],
    "excludeRecursion": [False, True],
    "preventRecursion": [False, True],
    "scanDepth": [None, 0, 1, 3, "2", 1000],
    "caseSensitive": [None, True, False],
    "matchWholeWords": [None, True, False],
    "ignoreBudget": [False, True],
    "triggers": [[], ["normal"], ["swipe", "quiet"], ["Normal"], None, "normal"],
    "outletName": ["", "mood", 3],
    "depth": [4, 0, 2, None],
    "role": [0, 1, 2, None],
    "content": [
        "dragon fire",
        "@@activate\nhello",
        "@@dont_activate\nx",
        "",
        "knight ale moon",
        "{{user}} wolf",
    ],
    "matchPersonaDescription": [False, True],
    "matchCharacterDescription": [False, True],
    "extensions": [{}, {"worldinfo_origin": {"trusted": False}}],  # untrusted (TrustPolicy)
}
SETTINGS: dict[str, list[Any]] = {
    "recursive": [True, False],
    "min_activations": [0, 0, 2, 5],
    "min_activations_depth_max": [0, 3, 10],
    "max_recursion_steps": [0, 0, 1, 2, 3],
    "budget": [25, 5, 1, 100],
    "budget_cap": [0, 0, 50],
    "depth": [2, 1, 4, 0],
    "match_whole_words": [False, True],
    "case_sensitive": [False, True],
    "use_group_scoring": [False, True],
    "character_strategy": [0, 1, 2, 3],
    "include_names": [True, False],
}


def mutate(case: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    c = copy.deepcopy(case)
    for book in c["books"].values():
        for e in book["entries"].values():
            for _ in range(rnd.randint(0, 3)):
                f = rnd.choice(list(POOL))
                e[f] = copy.deepcopy(rnd.choice(POOL[f]))
    for _ in range(rnd.randint(0, 3)):
        f = rnd.choice(list(SETTINGS))
        c["settings"][f] = rnd.choice(SETTINGS[f])
    return c


def run(case: dict[str, Any], *, fast: bool) -> list[str]:
    session = session_for(case)
    if not fast:
        session.scan_cache = None
    out = []
    for step in case["steps"]:
        if step["expect"].get("not_run"):
            continue
        result = generate_step(session, step)
        out.append(json.dumps(observed(session, result), sort_keys=True))
        if result.error:
            break
    return out


FILES = case_files("st")
COUNT = int(os.environ.get("WORLDINFO_MUTATIONS", "150"))


@pytest.mark.parametrize("seed", mutation_params(COUNT))
def test_fast_path_equals_reference_on_a_mutated_case(seed: int) -> None:
    rnd = random.Random(seed)
    path = rnd.choice(FILES)
    case = mutate(parse_json(path.read_bytes()), rnd)
    assert run(case, fast=True) == run(case, fast=False), f"{path.stem} mutated with seed {seed}"
