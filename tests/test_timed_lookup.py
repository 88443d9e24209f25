"""Timed-effect records find their entry by hash on the fast path exactly as on the
straightforward path, although the fast path hashes only the entries under the record's key
(``Plan.find_record``) and the activated entries only when the result is read."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from worldinfo._js import JSONValue, canonical
from worldinfo.conformance.st import message
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.engine.gathering import BookSelection, sorted_entries
from worldinfo.session import Session
from worldinfo.types import Book, Entry, Settings


def _entries() -> tuple[Entry, ...]:
    return (
        Entry.new(1, key=["dragon"], content="A", sticky=3),
        Entry.new(2, key=["castle"], content="B", sticky=2, cooldown=2),
        Entry.new(2, key=["castle"], content="B", sticky=2, cooldown=2),  # a duplicate
        Entry.new(4, key=["knight"], content="D", cooldown=3),
        Entry(data={"uid": None, "key": ["moat"], "content": "E", "sticky": 2}),
        Entry(data={"uid": math.nan, "key": ["moat"], "content": "E", "sticky": 2}),
        Entry(data={"key": ["tower"], "content": "G", "sticky": 2}),
    )


def _hashes(book: Book) -> list[int]:
    sel = BookSelection(global_names=("B",))
    out = []
    for e in sorted_entries({"B": book}, sel, strategy=1):
        h = e["hash"]
        assert isinstance(h, int)
        out.append(h)
    return out


def _records(book: Book, choice: int) -> dict[str, JSONValue]:
    """Records that point at an entry under another key, at a missing hash, at odd uids."""
    h = _hashes(book)

    def rec(n: int, end: int = 9) -> dict[str, JSONValue]:
        return {"hash": h[n], "start": 0, "end": end, "protected": False}

    variants: list[dict[str, JSONValue]] = [
        {"sticky": {"B.1": rec(1)}, "cooldown": {}},  # the record of another entry's hash
        {"sticky": {"B.2": rec(2), "B.null": rec(4)}, "cooldown": {"B.4": rec(3)}},
        {"sticky": {"B.NaN": rec(4), "B.1": {"hash": 77, "start": 0, "end": 9}}},
        {"sticky": {"B.undefined": rec(6, end=2)}, "cooldown": {"B.9": rec(3)}},
        {"sticky": {"B.2": {"hash": str(h[2]), "start": 0, "end": 9}}, "cooldown": {}},
    ]
    return variants[choice]


def _run(choice: int, *, fast: bool) -> list[Any]:
    book = Book(name="B", entries=_entries())
    session = Session(
        books={"B": book},
        settings=Settings(depth=5),
        global_books=["B"],
        chat=[message({"name": "User", "is_user": True, "mes": "nothing here"})],
        rng=random.Random(1).random,
    )
    if not fast:
        session.scan_cache = None
    session.chat_metadata["timedWorldInfo"] = _records(book, choice)
    out = []
    for text in ("castle", "moat knight", "dragon tower", "nothing", "castle"):
        session.append([message({"name": "User", "is_user": True, "mes": text})])
        result = session.generate("normal")
        out.append(
            (
                canonical(result.to_json()),
                [canonical(dict(e)) for e in result.activated],
                canonical(session.chat_metadata),
            )
        )
    return out


@pytest.mark.parametrize("choice", range(5), ids=lambda c: f"records-{c}")
def test_records_find_the_same_entries_on_both_paths(choice: int) -> None:
    assert _run(choice, fast=True) == _run(choice, fast=False)


def test_only_the_records_key_is_hashed_when_it_decides() -> None:
    entries = tuple(Entry.new(i, key=[f"k{i}"], content=f"c{i}", sticky=2) for i in range(50))
    book = Book(name="B", entries=entries)
    cache = ScanCache()
    session = Session(
        books={"B": book},
        settings=Settings(depth=5),
        global_books=["B"],
        chat=[message({"name": "User", "is_user": True, "mes": "k7"})],
        rng=random.Random(1).random,
    )
    session.scan_cache = cache
    first = session.generate("normal")
    plan = cache.plan(session.books, session.selection, session.settings)
    assert plan is not None
    assert sum(plan.hashed) == 1  # the sticky entry, for its record
    assert first.activated[0]["hash"] == _hashes(book)[7]
    session.append([message({"name": "User", "is_user": True, "mes": "nothing"})])
    second = session.generate("normal")
    assert [e["uid"] for e in second.activated] == [7]
    assert sum(plan.hashed) == 1 and not plan.all_hashed
