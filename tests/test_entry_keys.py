"""A plan's entry keys, made on first read, are ``entry_key`` of the entry objects."""

from __future__ import annotations

import random
from typing import Any

import pytest

from worldinfo.engine.fast.build import build_plan
from worldinfo.engine.fast.slots import Gate
from worldinfo.engine.fast.stored import EntryKeys
from worldinfo.types import Entry, Settings, entry_key

UIDS: list[Any] = [0, 7, -3, 2**53, 2**60, 1.5, 2.0, -0.0, "x", "", None, True, [1, 2], {"a": 1}]


def _origins(seed: int) -> list[tuple[Entry, str, list[int]]]:
    rng = random.Random(seed)
    out: list[tuple[Entry, str, list[int]]] = []
    for i in range(40):
        data: dict[str, Any] = {"key": [f"k{i}"], "content": "c", "order": rng.randrange(5)}
        if rng.random() < 0.8:
            data["uid"] = rng.choice(UIDS) if rng.random() < 0.5 else i
        if rng.random() < 0.1:
            data["world"] = "stored"  # not plain: the object's key is its own
        world = "One" if seed % 2 else rng.choice(("A", "B b", ""))  # one book, or several
        out.append((Entry(data=data), world, []))
    return out


@pytest.mark.parametrize("seed", range(10))
def test_every_key_read_is_the_objects_entry_key(seed: int) -> None:
    origins = _origins(seed)
    plan = build_plan(origins, Settings(), gate=Gate())
    keys = plan.keys
    assert isinstance(keys, EntryKeys) and len(keys) == len(origins)
    expected = [entry_key(plan.entries[p]) for p in range(len(origins))]
    some = random.Random(seed).sample(range(len(origins)), 10)
    assert [keys[p] for p in some] == [expected[p] for p in some]  # read one by one
    assert keys.every() == expected  # the rest made together
    assert [keys[p] for p in range(len(origins))] == expected
    assert keys[-1] == expected[-1]
    with pytest.raises(IndexError):
        keys[len(origins)]
