"""The bulk steps of a plan build (one C pass over a column) against the rule they stand
for, applied value by value."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_plan_build import _facts, _origins, _uniform

from worldinfo import _js
from worldinfo.engine.fast.build import build_plan
from worldinfo.engine.fast.columns import Columns
from worldinfo.engine.fast.origins import BookMemo, Origins
from worldinfo.engine.fast.slots import Gate
from worldinfo.types import Book, Entry, Settings

SAFE = 2**53 - 1
INTEGERS = st.one_of(st.integers(-SAFE, SAFE), st.sampled_from([0, -1, SAFE, -SAFE]))
SCALARS: st.SearchStrategy[Any] = st.one_of(
    INTEGERS,
    st.integers(),  # past the safe range too
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
)
PREFIXES = st.one_of(st.sampled_from(["", "Big.", "%d.", "%%", "a\x00b.", "\x00"]), st.text())


@given(values=st.lists(INTEGERS, max_size=40), prefix=PREFIXES)
def test_prefixed_strings_of_safe_integers_are_each_strings(values: list[int], prefix: str) -> None:
    """``to_strings`` of safe integers (one ``%d`` format, cut) is ``prefix + String(v)``."""
    assert _js.to_strings(values, prefix=prefix) == [prefix + _js.to_string(v) for v in values]


@given(values=st.lists(SCALARS, max_size=40), prefix=PREFIXES)
def test_prefixed_strings_of_any_values_are_each_strings(values: list[Any], prefix: str) -> None:
    """``to_strings`` of mixed values is ``prefix + String(v)`` of each."""
    assert _js.to_strings(values, prefix=prefix) == [prefix + _js.to_string(v) for v in values]


class _Text(str):
    """A string of another type: its entry is not plain (``stored.is_plain``)."""


CONTENTS: list[Any] = ["x\x00@@y", "@@activate\nbody", "@@", " @@", "", _Text("t")]


def _one_by_one(entries: list[Entry]) -> Any:
    """The plan of ``entries`` prepared one by one from their built objects."""
    ids = frozenset(id(e) for e in entries)
    return build_plan(_origins(entries, "Book"), Settings(), gate=Gate(), untrusted=ids)


@pytest.mark.parametrize("seed", range(8))
def test_plainness_of_contents_read_in_bulk_is_each_entrys(seed: int) -> None:
    """Contents tested for a leading ``@@`` all at once (one joined text) give the plan of
    entries prepared one by one, with contents that start with ``@@``, hold ``\x00@@``
    or are not of type ``str``."""
    rng = random.Random(seed)
    entries = _uniform(seed)
    for _ in range(rng.choice((0, 1, 3))):
        at = rng.randrange(len(entries))
        data = {**entries[at].data, "content": rng.choice(CONTENTS)}
        entries[at] = Entry(data=data)
    fast = build_plan(_origins(entries, "Book"), Settings(), gate=Gate())
    assert _facts(fast) == _facts(_one_by_one(entries))


@given(
    sizes=st.lists(st.integers(0, 6), min_size=1, max_size=3),
    twice=st.booleans(),
    picks=st.lists(st.integers(0, 10**6), max_size=20),
)
def test_origins_taken_are_each_indexs(sizes: list[int], twice: bool, picks: list[int]) -> None:
    """``Origins.taken`` (one book version's cells read as ``range``, its name and memo
    shared) gives each index's entry, name, memo array and cell, as ``of`` lists them."""
    books = [
        Book(name=f"B{b}", entries=tuple(Entry.new(i, key=[f"k{i}"]) for i in range(n)))
        for b, n in enumerate(sizes)
    ]
    memos = [BookMemo.after(b, None) for b in books]
    if twice:  # a book selected twice: its memo listed twice
        memos.append(memos[0])
    loaded = Origins.of(memos)
    expect = [
        (e, m.world, m.hashes, i) for m in memos for i, e in enumerate(m.entries)
    ]  # per index: entry, name, memo array, cell
    order = [p % len(expect) for p in picks] if expect else []
    taken = loaded.taken(order)
    got = list(zip(taken.entries, taken.worlds, taken.memos, taken.cells, strict=True))
    want = [expect[i] for i in order]
    assert [(e, w, c) for e, w, _, c in got] == [(e, w, c) for e, w, _, c in want]
    assert all(m is x[2] for (_, _, m, _), x in zip(got, want, strict=True))


NAMES = ["a", "b", "c", "d", "e", "f", "g"]


@given(
    dicts=st.lists(st.sets(st.sampled_from(NAMES)), max_size=6),
    names=st.lists(st.sampled_from(NAMES), max_size=7),
    read=st.sets(st.sampled_from(NAMES)),
)
def test_fields_ruled_out_in_bulk_are_held_by_none(
    dicts: list[set[str]], names: list[str], read: set[str]
) -> None:
    """After ``Columns.rule_out`` (three fields a pass), ``held`` and each column read as
    field by field: a field is ruled out only when no entry holds it."""
    datas = [dict.fromkeys(d, 1) for d in dicts]
    columns = Columns(datas)
    for name in read:  # some columns read before
        columns.loaded(name)
    columns.rule_out(names)
    for name in NAMES:
        assert columns.held(name) == any(name in d for d in datas)
        assert list(columns.get(name)) == [d.get(name, _js.UNDEFINED) for d in datas]
