"""The found positions of a later scan, counted from the closest recent hits
(``engine/fast/found.py``), are the positions of the new hits exactly: a key gone takes
its positions away unless another hit key still lists them, a key added brings its own;
the visit lists and nomination codes built from them are what the plan's tables give, and
later turns over several scan-text configurations equal the straightforward path's; the
ids of a message are kept for the next turn's depth window."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_later_turns import turns

from worldinfo.conformance import generate as gen
from worldinfo.conformance.st import session_for
from worldinfo.engine.fast.found import (
    FULL,
    PLAIN,
    SIMPLE,
    Found,
    FoundSets,
    count,
    listed,
    nomination_codes,
    union_mask,
)
from worldinfo.engine.fast.matcher import KeyIndex
from worldinfo.engine.fast.plan import Plan
from worldinfo.engine.fast.recent import MESSAGES_KEEP, RecentTexts, Visit
from worldinfo.engine.fast.scan import FastScan

SIZE = 40
KEYS = 12


def _scratch(table: dict[int, list[int]], hits: frozenset[int]) -> list[int]:
    """How many ids of ``hits`` list each position, counted from nothing."""
    out = [0] * SIZE
    for key in hits:
        for pos in table.get(key, ()):
            out[pos] += 1
    return out


TABLES = st.dictionaries(
    st.integers(0, KEYS - 1),
    st.lists(st.integers(0, SIZE - 1), min_size=1, max_size=8, unique=True).map(sorted),
    max_size=KEYS,
)
HITS = st.frozensets(st.integers(0, KEYS + 3), max_size=KEYS)


@settings(max_examples=300)
@given(TABLES, st.lists(HITS, min_size=1, max_size=10))
def test_counted_from_recent_hits_equal_counted_from_nothing(
    table: dict[int, list[int]], sequence: list[frozenset[int]]
) -> None:
    sets = FoundSets()
    prev: Found | None = None
    for hits in sequence:
        got = sets.found(0, dict(table), hits, SIZE, prev)
        assert got.exact
        assert list(got.counts) == _scratch(table, hits)
        prev = got


def test_a_position_stays_while_one_hit_key_lists_it() -> None:
    table: dict[int, list[int]] = {1: [3, 5], 2: [5, 7], 3: [9]}
    sets = FoundSets()
    first = sets.found(0, table, frozenset({1, 2}), 10, None)
    assert [p for p, c in enumerate(first.counts) if c] == [3, 5, 7]
    second = sets.found(0, table, frozenset({2, 3}), 10, first)  # 1 gone, 3 added
    assert [p for p, c in enumerate(second.counts) if c] == [5, 7, 9]
    third = sets.found(0, table, frozenset({3}), 10, second)  # 2 gone: 5 and 7 with it
    assert [p for p, c in enumerate(third.counts) if c] == [9]


def test_a_position_listed_under_more_hits_than_a_byte_counts() -> None:
    table: dict[int, list[int]] = {k: [0, k % 3 + 1] for k in range(300)}
    table[400] = [5]
    many = frozenset(range(300))
    got = count(table, many, 6, [])
    assert not got.exact
    assert list(got.counts) == [1, 1, 1, 1, 0, 0]
    sets = FoundSets()
    sets.found(0, table, many, 6, None)
    fewer = sets.found(0, table, frozenset({1, 400}), 6, None)  # never from the mask
    assert fewer.exact
    assert list(fewer.counts) == [1, 0, 1, 0, 0, 1]


@given(st.lists(st.binary(min_size=SIZE, max_size=SIZE), min_size=1, max_size=3))
def test_visit_positions_are_the_positions_of_any_mask_or_always(masks: list[bytes]) -> None:
    always = [0, SIZE - 1]
    mask = union_mask([bytearray(m) for m in masks], always, SIZE)
    want = [p for p in range(SIZE) if p in always or any(m[p] for m in masks)]
    assert FoundSets().positions(mask) == want


@settings(max_examples=300)
@given(st.integers(1, 400).flatmap(lambda n: st.tuples(st.sets(st.integers(0, n - 1)), st.just(n))))
def test_window_positions_are_the_set_bytes_of_the_window(got: tuple[set[int], int]) -> None:
    """Any window of a sparse or dense mask: its set positions, from the zero runs or
    picked, equal those read one by one."""
    ones, size = got
    mask = bytearray(size)
    for p in ones:
        mask[p] = random.Random(p).randint(1, 255)
    rng = random.Random(size + len(ones))
    start = rng.randrange(size)
    end = rng.randrange(start, size + 1)
    sets = FoundSets()
    assert sets.positions(mask, start, end) == [p for p in range(start, end) if mask[p]]
    assert sets.positions(mask) == sorted(ones)


@settings(max_examples=200)
@given(st.lists(st.tuples(TABLES, HITS), min_size=1, max_size=3), st.sets(st.integers(0, SIZE - 1)))
def test_listed_positions_are_the_positions_of_the_union_mask(
    configs: list[tuple[dict[int, list[int]], frozenset[int]]], always: set[int]
) -> None:
    """A sparse visit takes the positions its hit keys list (``listed``): those of the
    union's mask, ``always`` among them."""
    sets = FoundSets()
    found = [sets.found(cid, t, hits, SIZE, None) for cid, (t, hits) in enumerate(configs)]
    mask = union_mask([f.counts for f in found], sorted(always), SIZE)
    assert listed(configs, sorted(always)) == sets.positions(mask)


@settings(max_examples=200)
@given(st.binary(min_size=1, max_size=300), st.lists(st.integers(1, 80), max_size=6))
def test_visit_head_is_a_prefix_of_the_positions(raw: bytes, wants: list[int]) -> None:
    """``Visit.ahead`` grows the head to at least the positions asked for (all, when fewer
    are visited), a prefix of ``positions``, with the codes of its positions; ``full``
    picks the visited ``FULL`` positions."""
    mask = bytearray(b if b % 3 else 0 for b in raw)  # a third of the bytes not visited
    every = bytes(b % 3 for b in reversed(raw))
    sets = FoundSets()
    visit = Visit((), mask, sets)
    table = bytearray(b"\x03" * len(mask))
    want = [p for p, b in enumerate(mask) if b]
    n = 0
    for step in wants:
        n += step
        head = visit.ahead(n, table, lambda: every)
        assert len(head) >= min(n, len(want))
        assert head == want[: len(head)]
        assert visit.head_codes == bytes(every[p] for p in head)
    assert visit.positions == want
    sets.ready(table, lambda: every)
    assert sets.full(mask) == [p for p in want if every[p] == FULL]


@settings(max_examples=200)
@given(st.lists(st.booleans(), min_size=1, max_size=60), st.data())
def test_lacking_lists_the_positions_without_an_object(built: list[bool], data: Any) -> None:
    fast = FastScan.__new__(FastScan)  # ``lacking`` reads the scan's own list alone
    entries: list[Any] = [{"uid": i} if b else None for i, b in enumerate(built)]
    fast.own = (entries, {})
    positions = sorted(data.draw(st.sets(st.integers(0, len(built) - 1))))
    assert fast.lacking(positions) == [p for p in positions if entries[p] is None]


@pytest.mark.parametrize("density", [0.01, 0.5])  # found one by one, and picked
def test_positions_sparse_and_dense(density: float) -> None:
    rng = random.Random(7)
    mask = bytearray(rng.random() < density for _ in range(4000))
    assert FoundSets().positions(mask) == [p for p, b in enumerate(mask) if b]


def _plan(seed: int) -> Plan:
    c = gen.case(name=f"p{seed}", entries=300, messages=4, seed=seed)
    for i, e in enumerate(c["books"]["Bench"]["entries"].values()):
        if i % 5 == 0:
            e["keysecondary"], e["selective"], e["selectiveLogic"] = ["alpha", "beta"], True, i % 4
        if i % 7 == 0:
            e["key"] = [f"/{e['key'][0]}|zz{i}/i"]
        if i % 11 == 0:
            e["constant"] = True
        if i % 13 == 0:
            e["disable"] = True
    session = session_for(c)
    assert session.scan_cache is not None
    plan = session.scan_cache.plan(
        session.books, session.selection, session.settings, trust=session.trust
    )
    assert plan is not None
    return plan


@pytest.mark.parametrize("seed", range(3))
def test_nomination_codes_are_the_rule_of_each_position(seed: int) -> None:
    plan = _plan(seed)

    def rule(p: int) -> int:
        simple = plan.secondary[p] is None and p not in plan.regex_positions
        return (SIMPLE if simple else PLAIN) if plan.plain[p] else FULL

    assert plan.regex_positions and any(s is not None for s in plan.secondary)
    every = nomination_codes(plan.plain, plan.secondary, plan.regex_positions)
    assert list(every) == [rule(p) for p in range(len(plan.keys))]
    mask = bytearray(random.Random(seed).random() < 0.3 for _ in range(len(plan.keys)))
    want = bytes(rule(p) for p, m in enumerate(mask) if m)
    table = bytearray(b"\x03" * len(mask))
    assert FoundSets().codes(mask, table, lambda: every) == want
    assert table == every


def configured_case(seed: int) -> dict[str, Any]:
    """Later turns over entries of several scan-text configurations (their own scan depth,
    case sensitivity, whole words), each turn one message more: a depth-limited window
    loses its oldest message as it gains the new one."""
    rng = random.Random(seed)
    c = gen.case(name=f"c{seed}", entries=200, messages=16, seed=seed, steps=6)
    for i, e in enumerate(c["books"]["Bench"]["entries"].values()):
        if i % 3 == 0:
            e["scanDepth"] = rng.choice((1, 2, 3))
        if i % 4 == 0:
            e["caseSensitive"] = rng.choice((True, False))
        if i % 5 == 0:
            e["matchWholeWords"] = True
        if i % 6 == 0:
            e["sticky"] = rng.choice((1, 2))
        if i % 8 == 0:
            e["cooldown"] = rng.choice((1, 3))
    c["settings"]["depth"] = rng.choice((2, 3, 5))
    c["settings"]["budget"] = rng.choice((3, 50))
    return c


@pytest.mark.parametrize("seed", range(8))
def test_later_turns_over_several_configurations_equal_straightforward(seed: int) -> None:
    case = configured_case(seed)
    assert turns(case, fast=True) == turns(case, fast=False)


def test_message_ids_are_kept_until_a_needle_is_added() -> None:
    index = KeyIndex()
    dragon = index.add_text("dragon", lowered=True, whole_word=False)
    index.freeze()
    recent = RecentTexts()
    got = recent.text_ids(index, "a dragon\nand more")
    assert got == {dragon} and recent.text_ids(index, "a drag" + "on\nand more") is got
    for i in range(MESSAGES_KEEP):
        recent.text_ids(index, str(i))
    assert recent.text_ids(index, "a dragon\nand more") is not got  # cleared, not grown
    castle = index.add_text("castle", lowered=True, whole_word=False)
    assert recent.text_ids(index, "a castle, a dragon") == {dragon, castle}
    recent.forget()
    assert len(recent) == 0
