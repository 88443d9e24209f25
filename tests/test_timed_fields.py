"""``TimedEffects`` reads safe integers and booleans of records and entries without the
``_js`` conversions (both scan paths share it): its check and write phases equal R62-R65
read with ``_js.to_number`` / ``_js.truthy`` / ``entry_key`` on every field, for odd values
of every field (floats, NaN, infinities, strings, huge integers, booleans, missing)."""

from __future__ import annotations

import copy
import math
import random
from typing import Any

import pytest

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue, canonical
from worldinfo.engine.timed_effects import TYPES, TimedEffects, entry_key

ODD: list[JSONValue] = [
    *(0, 1, 2, 3, 5, 9, -1, -4, 2.0, 2.5, -0.0, math.nan, math.inf, -math.inf),
    *("3", "", "x", " 4 ", None, True, False, [], [2], {}, 2**60, -(2**60), 2**52 + 3),
]


def _reference(state: dict[str, Any], n: int, entries: list[dict[str, Any]]) -> Any:
    """R62-R63 then R65 with every field converted by ``_js``, in the base's words."""
    active: dict[str, list[Any]] = {"sticky": [], "cooldown": []}

    def find(h: JSONValue) -> dict[str, Any] | None:
        target = _js.to_string(h)
        return next((e for e in entries if _js.to_string(e.get("hash", UNDEFINED)) == target), None)

    for t in TYPES:
        records = state[t]
        for key in _js.js_key_order(list(records)):
            record = records.get(key)
            if not isinstance(record, dict):
                continue
            entry = find(record.get("hash", UNDEFINED))
            get = record.get
            if n <= _js.to_number(get("start", UNDEFINED)) and not _js.truthy(
                get("protected", UNDEFINED)
            ):
                del records[key]
            elif entry is None:
                if n >= _js.to_number(get("end", UNDEFINED)):
                    del records[key]
            elif not _js.truthy(entry.get(t, UNDEFINED)):
                del records[key]
            elif n >= _js.to_number(get("end", UNDEFINED)):
                del records[key]
                cooldown = entry.get("cooldown", UNDEFINED)
                if t == "sticky" and _js.truthy(cooldown):
                    state["cooldown"][entry_key(entry)] = {
                        "hash": entry.get("hash", UNDEFINED),
                        "start": n,
                        "end": _js.number_value(n + _js.to_number(cooldown)),
                        "protected": True,
                    }
                    active["cooldown"].append(entry.get("hash", UNDEFINED))
            else:
                active[t].append(entry.get("hash", UNDEFINED))
    for entry in entries:
        for t in TYPES:
            value = entry.get(t, UNDEFINED)
            if not _js.truthy(value) or entry_key(entry) in state[t]:
                continue
            state[t][entry_key(entry)] = {
                "hash": entry.get("hash", UNDEFINED),
                "start": n,
                "end": _js.number_value(n + _js.to_number(value)),
                "protected": False,
            }
    return active, state


def _case(rng: random.Random) -> tuple[dict[str, Any], int, list[dict[str, Any]]]:
    def pick() -> JSONValue:
        return rng.choice(ODD) if rng.random() < 0.6 else rng.randint(0, 9)

    uids: list[JSONValue] = [1, 2, 3, None, math.nan, "u", 2.0, True, 2**60]
    entries: list[dict[str, Any]] = []
    for i in range(rng.randint(1, 6)):
        e: dict[str, Any] = {"uid": rng.choice(uids), "world": rng.choice(["W", "W", 5, None])}
        e["hash"] = rng.choice([1000 + i, 1000 + i, str(1000 + i), 2**60 + i, 1000])
        for t in TYPES:
            if rng.random() < 0.8:
                e[t] = pick()
        entries.append(e)
    state: dict[str, Any] = {}
    for t in TYPES:
        records: dict[str, Any] = {}
        for j in range(rng.randint(0, 5)):
            record = {f: pick() for f in ("start", "end", "protected") if rng.random() < 0.9}
            record["hash"] = rng.choice([*(e["hash"] for e in entries), 77, "1000", 1000.0])
            records[rng.choice(["W.1", "W.2", "W.null", f"{j}", "x"])] = record
        state[t] = records
    return state, rng.randint(0, 12), entries


@pytest.mark.parametrize("seed", range(300))
def test_check_and_write_read_fields_as_js_does(seed: int) -> None:
    state, n, entries = _case(random.Random(seed))
    expected = _reference(copy.deepcopy(state), n, entries)
    timed = TimedEffects(state, n, entries)
    timed.check()
    timed.write(entries)
    got = ({t: timed.active[t] for t in TYPES}, state)
    assert canonical(got) == canonical(expected)
