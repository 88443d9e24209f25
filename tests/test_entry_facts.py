"""Per-entry facts of the fast path (``engine/fast/entry_facts.py``) and the entries it hands
out: the same values the straightforward path reads from the entry, and copies that never
share state with the prepared plan."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo import Book, Message, Session, _js
from worldinfo._js import UNDEFINED, canonical
from worldinfo.engine.fast.entry_facts import CLASS_FIELDS, FactTable, facts_of
from worldinfo.engine.output import assemble
from worldinfo.engine.timed_effects import TimedEffects
from worldinfo.types import Entry, Settings

ODD = st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 8, "1", None, True, 4.0, UNDEFINED])
FIELD = st.fixed_dictionaries(
    {
        "position": ODD,
        "order": st.sampled_from([100, 10, 7, -3, 100.5, True, "5"]),
        "depth": st.sampled_from([4, 0, 2, None, UNDEFINED, "4"]),
        "role": st.sampled_from([0, 1, 2, None, UNDEFINED]),
        "outletName": st.sampled_from(["", "mood", 3, None, UNDEFINED]),
        "content": st.sampled_from(["a", "b", "", "c\nd", 0, 5, None]),
    }
)


def _entry(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not UNDEFINED}


@settings(max_examples=300, deadline=None)
@given(st.lists(FIELD, max_size=12), st.booleans())
def test_assembly_from_facts_equals_assembly_from_fields(
    rows: list[dict[str, Any]], hooked: bool
) -> None:
    entries = [_entry(r) for r in rows]
    facts = [facts_of(e) for e in entries]
    seen: list[tuple[str, Any]] = []

    def hook(text: str, depth: Any) -> str:
        seen.append((text, depth))
        return text.upper() if text != "b" else ""

    def pieces(*, with_facts: bool) -> Any:
        seen.clear()
        out = assemble(
            entries, regex_hook=hook if hooked else None, facts=facts if with_facts else None
        )
        return (
            out.before,
            out.after,
            out.an_top,
            out.an_bottom,
            out.examples,
            out.depth_groups(),
            out.outlet_map(),
            list(seen),
        )

    assert pieces(with_facts=True) == pieces(with_facts=False)


def _book() -> Book:
    entries = [
        Entry.new(1, key=["dragon"], content="Plain dragon text.", sticky=2),
        Entry.new(2, key=["dragon"], content="Hello {{user}}."),
        Entry.new(3, key=["castle"], content="Castle, no timed effect."),
        Entry.new(4, key=["castle"], content="Cooling castle.", cooldown=3),
    ]
    return Book(name="B", entries=tuple(entries))


def _session(*, fast: bool) -> Session:
    session = Session(
        books={"B": _book()},
        settings=Settings(depth=5),
        global_books=["B"],
        chat=[Message(name="User", mes="A dragon at the castle.", is_user=True)],
        rng=random.Random(1).random,
    )
    if not fast:
        session.scan_cache = None
    return session


def _handed_out(session: Session) -> list[dict[str, Any]]:
    result = session.generate("normal")
    return [canonical(dict(e)) for e in result.activated]


def test_handed_out_entries_equal_the_straightforward_ones_hash_included() -> None:
    fast, slow = _session(fast=True), _session(fast=False)
    for _ in range(3):  # later turns read the sticky and cooldown records
        got, want = _handed_out(fast), _handed_out(slow)
        assert got == want
        assert all("hash" in e for e in got)


def test_handed_out_entries_are_copies_of_the_prepared_ones() -> None:
    session = _session(fast=True)
    first = session.generate("normal").activated
    assert [e["content"] for e in first] == [
        "Plain dragon text.",
        "Hello User.",
        "Castle, no timed effect.",
        "Cooling castle.",
    ]
    for entry in first:
        assert isinstance(entry, dict)
        entry["content"] = "changed by the caller"
        entry["key"] = ["nothing"]
    slow = _session(fast=False)
    slow.generate("normal")
    assert _handed_out(session) == _handed_out(slow)


HASHES = st.sampled_from(
    [0, 1, 7, -7, 2**53 - 1, 2**53, 2**53 + 1, -(2**53), 7.0, 1.5, True, "7", None]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(HASHES, max_size=6), HASHES, st.lists(HASHES, max_size=3))
def test_timed_effect_lookup_is_strict_equality(values: list[Any], h: Any, more: list[Any]) -> None:
    timed = TimedEffects({"sticky": {}, "cooldown": {}}, 3, [])
    timed.active = {"sticky": list(values), "cooldown": [], "delay": []}
    assert timed.is_active("sticky", {"hash": h}) == any(_js.strict_eq(x, h) for x in values)
    timed.active["sticky"] += more  # the buffer grows while the check phase runs
    got = timed.is_active("sticky", {"hash": h})
    assert got == any(_js.strict_eq(x, h) for x in values + more)


SAFE_EDGE = st.sampled_from([2**53 - 1, -(2**53 - 1), 2**53, -(2**53), 2**53 + 1, 0, 7, True])
NUMBERS = st.one_of(SAFE_EDGE, st.integers(), st.floats(allow_nan=True), st.booleans())


@settings(max_examples=300, deadline=None)
@given(NUMBERS, NUMBERS, st.lists(NUMBERS, max_size=5))
def test_strict_equality_between_safe_integers_is_python_equality(
    a: Any, b: Any, values: list[Any]
) -> None:
    if _js.is_safe_integer(a) and _js.is_safe_integer(b):
        assert _js.strict_eq(a, b) == (a == b)
    as_set = _js.safe_integer_set(values)
    assert (as_set is not None) == all(_js.is_safe_integer(v) for v in values)
    if as_set is not None and _js.is_safe_integer(a):
        assert (a in as_set) == any(_js.strict_eq(v, a) for v in values)


CLASS_VALUE: st.SearchStrategy[Any] = st.sampled_from(
    [0, 1, 2, 4, 7, 100, 50, 0.0, -0.0, 1.0, 100.0, True, False, None, "", "x", "1", [], {}]
)
CLASS_ROW = st.fixed_dictionaries(
    {f: CLASS_VALUE for f in CLASS_FIELDS},
    optional={
        "content": st.sampled_from(["a", "", "{{user}} b", "c\nd", "<USER>", "é😀", 0, None]),
        "order": st.sampled_from([100, 10, -3, 100.5, True, "5", "1_0", None]),
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(CLASS_ROW, st.booleans()), max_size=10))
def test_facts_shared_by_a_class_of_alike_entries_equal_each_entrys_own(
    rows: list[tuple[dict[str, Any], bool]],
) -> None:
    entries: list[dict[str, Any]] = []
    for row, like_previous in rows:
        entry = _entry(row)
        if like_previous and entries:  # the very objects of the previous entry's fields
            previous = entries[-1]
            for f in CLASS_FIELDS:
                entry.pop(f, None)
                if f in previous:
                    entry[f] = previous[f]
        entries.append(entry)
    table = FactTable()
    got = [table.at(entries, pos) for pos in range(len(entries))]
    want = [facts_of(e) for e in entries]
    assert [canonical(list(f)) for f in got] == [canonical(list(f)) for f in want]
    assert [[type(v) for v in f] for f in got] == [[type(v) for v in f] for f in want]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(CLASS_ROW, st.booleans()), min_size=1, max_size=10),
    st.lists(st.integers(0, 9), max_size=4),
    st.lists(st.integers(0, 9), max_size=14),
)
def test_facts_derived_in_a_batch_equal_each_entrys_own(
    rows: list[tuple[dict[str, Any], bool]], before: list[int], batch: list[int]
) -> None:
    """``FactTable.derive`` (the budget phase's batch) over any positions, repeated or
    derived before one by one, gives each entry the facts ``facts_of`` gives it and the
    ``quick`` units ``at`` gives it."""
    entries: list[dict[str, Any]] = []
    for row, like_first in rows:
        entry = _entry(row)
        if like_first and entries:  # the very objects of the first entry's fields
            for f in CLASS_FIELDS:
                entry.pop(f, None)
                if f in entries[0]:
                    entry[f] = entries[0][f]
        entries.append(entry)
    n = len(entries)
    table, one_by_one = FactTable(), FactTable()
    for pos in before:
        table.at(entries, pos % n)
    table.derive(entries, [pos % n for pos in batch])
    derived = table.sized(entries)
    assert all(derived[pos % n] is not None for pos in [*before, *batch])
    for pos in sorted({p % n for p in [*before, *batch]}):
        got, want = table.at(entries, pos), facts_of(entries[pos])
        assert canonical(list(got)) == canonical(list(want))
        assert [type(v) for v in got] == [type(v) for v in want]
        one_by_one.at(entries, pos)
        assert table.quick[pos] == one_by_one.quick[pos]


def test_a_batch_of_one_class_gets_the_budget_phases_short_branch() -> None:
    """Alike entries with plain contents, no roll and no ``ignoreBudget``, derived in one
    batch: each gets its own ``quick`` units, as ``at`` gives them."""
    shared: dict[str, Any] = {"useProbability": True, "probability": 100, "position": 1}
    entries = [{**shared, "content": "x" * k, "order": k} for k in range(1, 6)]
    entries.append({**shared, "content": "{{user}}", "order": 9})
    table = FactTable()
    table.derive(entries, range(len(entries)))
    want = [FactTable().at(entries, pos) for pos in range(len(entries))]
    assert [table.at(entries, pos) for pos in range(len(entries))] == want
    assert table.quick == [2, 3, 4, 5, 6, 0]


_SWAPS: list[tuple[Any, Any]] = [
    (1, True),
    (True, 1.0),
    (1.0, 1),
    (0, False),
    (False, -0.0),
    (100, 100.0),
    (100.0, 100),
    ([], []),
    (None, UNDEFINED),
]
"""A class value and one equal to it (``==``) that is not that object (``UNDEFINED``:
absent)."""


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dictionaries(st.sampled_from(CLASS_FIELDS), CLASS_VALUE, max_size=len(CLASS_FIELDS)),
            st.sampled_from(["own", "same", "drop", "add", "equal"]),
            st.sampled_from(CLASS_FIELDS),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_a_later_scans_quick_class_test_gives_each_entry_its_own_facts(
    rows: list[tuple[dict[str, Any], str, str]],
) -> None:
    """In a later scan (``fresh`` off) ``_derive`` first tests an entry against the class it
    met last (the fields it holds read at once, those it lacks absent): an entry holding the
    previous one's objects, or all of them but one field dropped, added or swapped for an
    equal value of another type, gets the facts ``facts_of`` gives it."""
    entries: list[dict[str, Any]] = []
    for own, how, field in rows:
        entry = {**own, "content": "c" * len(own), "order": len(entries)}
        if how != "own" and entries:
            entry = {**entries[-1], "content": "d", "order": 1.5}  # the very objects
            if how == "drop":
                entry.pop(field, None)
            elif how == "add" and field not in entry:
                entry[field] = "x"
            elif how == "equal" and field in entry:
                value = entry[field]
                swap = [b for a, b in _SWAPS if type(a) is type(value) and a == value]
                if swap and swap[0] is UNDEFINED:
                    del entry[field]
                elif swap:
                    entry[field] = swap[0]
        entries.append(entry)
    table = FactTable()
    table.sized(entries)
    table.fresh = False  # as after the plan's first scan (``handout``)
    got = [table.at(entries, pos) for pos in range(len(entries))]
    want = [facts_of(e) for e in entries]
    assert [canonical(list(f)) for f in got] == [canonical(list(f)) for f in want]
    assert [[type(v) for v in f] for f in got] == [[type(v) for v in f] for f in want]
