"""The budget phase's short branch (``FactTable.quick``): a shared entry with a plain
content, no roll and no ``ignoreBudget`` is added from its prepared facts. Later turns with
contents that call the substituter, rolls, duplicate books, forced entries and edited books
must give what the straightforward path gives."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_later_turns import lazy_case, timed_case, turns

from worldinfo import Book, Message, Session
from worldinfo.engine.fast.entry_facts import FactTable
from worldinfo.types import Entry, Settings


def _mixed(seed: int) -> dict[str, Any]:
    """``lazy_case`` with some contents a substituter changes (not quick), some empty and
    some non-ASCII (their UTF-16 length is not their ``len``), and a tight budget."""
    rng = random.Random(seed)
    c = lazy_case(seed) if seed % 2 else timed_case(seed)
    for i, e in enumerate(c["books"]["Bench"]["entries"].values()):
        if i % 5 == 0:
            e["content"] = f"{e['content']} {{{{char}}}}"
        elif i % 9 == 0:
            e["content"] = ""
        elif i % 6 == 0:
            e["content"] = f"{e['content']} \U0001f600 é"
    c["settings"]["budget"] = rng.choice((1, 2, 3))
    return c


@pytest.mark.parametrize("seed", range(12))
def test_mixed_later_turns_equal_straightforward(seed: int) -> None:
    case = _mixed(seed)
    assert turns(case, fast=True) == turns(case, fast=False)


def _book(content: str) -> Book:
    entries = [Entry.new(i, key=[f"k{i}"], content=f"{content} {i}") for i in range(6)]
    entries.append(Entry.new(6, key=["k6"], content="rolled", useProbability=True, probability=40))
    entries.append(Entry.new(7, key=["k7"], content="free", ignoreBudget=True))
    return Book(name="B", entries=tuple(entries))


def _session(content: str, *, seed: int, fast: bool) -> Session:
    """A session over ``_book(content)``, on the fast path or the straightforward one."""
    session = Session(
        books={"B": _book(content)},
        settings=Settings(depth=2, budget=25),
        global_books=["B"],
        max_context=400,
        rng=random.Random(seed).random,
    )
    if not fast:
        session.scan_cache = None
    return session


def _run(*, fast: bool) -> list[Any]:
    session = _session("x" * 30, seed=3, fast=fast)
    out = []
    for turn in range(4):
        if turn == 2:  # the book edited between turns: new facts, nothing stale
            session.books = {"B": _book("y" * 90)}
        words = " ".join(f"k{i}" for i in range(8))
        session.chat.append(Message(name="User", mes=words, is_user=True))
        result = session.generate("normal")
        out.append(sorted((str(e["uid"]), str(e["content"])) for e in result.activated))
    return out


def test_edited_book_between_turns_equals_straightforward() -> None:
    fast = _run(fast=True)
    assert fast == _run(fast=False)
    assert len(fast[0]) > len(fast[2]) > 1  # the longer contents overflow sooner


def test_quick_units_only_for_plain_unrolled_budgeted_entries() -> None:
    entries: list[dict[str, Any]] = [
        {"content": "abc", "order": 1},
        {"content": "a\U0001f600", "order": 1},
        {"content": "{{char}}", "order": 1},
        {"content": "abc", "useProbability": True, "probability": 50},
        {"content": "abc", "useProbability": True, "probability": 100},
        {"content": "abc", "ignoreBudget": True},
        {"content": 5},
    ]
    table = FactTable()
    table.sized(entries)
    assert table.quick == [0] * len(entries)  # nothing derived yet: nothing is quick
    for pos in range(len(entries)):
        table.at(entries, pos)
    assert table.quick == [4, 4, 0, 0, 4, 0, 0]


def _mixed_steps(*, fast: bool) -> list[Any]:
    """Turns of one session: forced entries, a dry run, a traced scan and the book swapped
    for one with the same keys; the facts of the first book must not be read after it."""
    session = _session("x" * 60, seed=5, fast=fast)
    words = " ".join(f"k{i}" for i in range(8))
    steps: list[dict[str, Any]] = [
        {},
        {"force_activate": [("B", 3), ("B", 5)]},
        {"dry_run": True},
        {"trace": True},
        {"swap": "z" * 12},
        {"force_activate": [("B", 0)]},
        {},
    ]
    out = []
    for step in steps:
        if "swap" in step:
            session.books = {"B": _book(step["swap"])}
        session.chat.append(Message(name="User", mes=words, is_user=True))
        result = session.generate(
            "normal",
            dry_run=step.get("dry_run", False),
            force_activate=step.get("force_activate", ()),
            trace=step.get("trace", False),
        )
        out.append(
            (
                [(str(e["uid"]), str(e["content"]), e.get("hash")) for e in result.activated],
                result.before,
                session.chat_metadata.get("timedWorldInfo"),
            )
        )
    return out


def test_forced_dry_run_traced_and_swapped_turns_equal_straightforward() -> None:
    fast = _mixed_steps(fast=True)
    assert fast == _mixed_steps(fast=False)
    assert len(fast[4][0]) > len(fast[0][0])  # shorter contents: more of them fit
