"""A timed-effect record finds the first entry with its hash on the fast path, as on the
straightforward path, when the fast path takes the entry it hashed for it before
(``records.find_record``, ``Plan.hashed_at``) instead of the entries under its key: only
where no other entry can share its hash (a plain ``world`` and ``uid``, and no two entries
sharing a key: ``records.learn_keys``, a fact kept on the book for its later plans)."""

from __future__ import annotations

import copy
import math
import random
from typing import Any

import pytest

from worldinfo._js import JSONValue, canonical
from worldinfo.conformance.st import message
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.engine.fast.plan import Plan
from worldinfo.engine.fast.records import distinct_keys
from worldinfo.engine.gathering import BookSelection, sorted_entries
from worldinfo.session import Session
from worldinfo.types import Book, Entry, Settings

SELECTION = BookSelection(global_names=("B",))
WORDS = ("dragon", "castle", "moat", "knight", "tower")


def _plan(book: Book) -> Plan:
    plan = ScanCache().plan({"B": book}, SELECTION, Settings(depth=5))
    assert plan is not None
    return plan


def _hashes(book: Book) -> list[int]:
    out = []
    for e in sorted_entries({"B": book}, SELECTION, strategy=1):
        h = e["hash"]
        assert isinstance(h, int)
        out.append(h)
    return out


def _twin(uid: JSONValue, other: JSONValue) -> Book:
    """Two entries alike but for their ``uid``s (equal JSON text when the uids' is), before
    a third with its own uid."""
    fields: dict[str, JSONValue] = {"key": ["moat"], "content": "E", "sticky": 2}
    return Book(
        name="B",
        entries=(
            Entry(data={"uid": uid, **fields}),
            Entry(data={"uid": other, **fields}),
            Entry.new(7, key=["tower"], content="G", sticky=2),
        ),
    )


@pytest.mark.parametrize(
    ("uid", "other"),
    [(None, math.nan), (math.inf, None), ([1, None], [1, math.nan]), (3, 3), ("a", "a")],
    ids=["null-NaN", "Infinity-null", "arrays", "same-int", "same-string"],
)
def test_a_later_twin_hashed_first_does_not_hide_the_first(uid: Any, other: Any) -> None:
    book = _twin(uid, other)
    h = _hashes(book)
    assert h[0] == h[1]
    plan = _plan(book)
    plan.positions_of_key("B.7")  # the key index: keys are learnt distinct or not
    assert distinct_keys(plan) == (plan.keys[0] != plan.keys[1])  # odd uids: distinct
    assert plan.ensure_hash(1) == h[0]  # only the later twin hashed
    assert plan.find_record("B.7", str(h[0])) == 0
    assert sorted(plan.by_hash[h[0]]) == [0, 1]  # every position with the hash


def test_distinct_keys_are_learnt_once_and_kept_on_the_book() -> None:
    book = Book(name="B", entries=tuple(Entry.new(i, key=[f"k{i}"], sticky=2) for i in range(9)))
    h = _hashes(book)
    plan = _plan(book)
    assert not distinct_keys(plan)  # not known before a key index is built
    plan.positions_of_key("B.3")
    assert distinct_keys(plan)
    other = Book(name="B", entries=book.entries)
    assert distinct_keys(_plan(other), learn=True)  # from a set of the keys
    later = _plan(book)  # another cache: a later session of the same book
    assert distinct_keys(later)
    later.ensure_hash(4)
    assert later.find_record("B.0", str(h[4])) == 4  # a record of another entry's hash
    assert later.by_hash == {h[4]: [4]}
    assert later.positions_of_key("B.4") == [4]


@pytest.mark.parametrize("seed", range(40))
def test_distinct_keys_learnt_from_integer_uids_as_from_the_keys(seed: int) -> None:
    """Learnt from the uids when each is a safe integer (``Plan.key_ids``), else from the
    keys: the same answer as a set of the keys, duplicates and look-alikes included."""
    rng = random.Random(seed)
    odd: list[JSONValue] = [1.0, True, "1", 2**53, None]
    uids: list[JSONValue] = [rng.randrange(6) for _ in range(rng.randint(1, 6))]
    if rng.random() < 0.3:
        uids[rng.randrange(len(uids))] = rng.choice(odd)
    book = Book(name="B", entries=tuple(Entry(data={"uid": u, "key": ["k"]}) for u in uids))
    plan = _plan(book)
    assert (plan.key_ids is not None) == all(type(u) is int and u < 2**53 for u in uids)
    assert distinct_keys(plan, learn=True) == (len(set(plan.keys)) == len(plan.keys))


def test_a_book_selected_twice_does_not_take_its_fact() -> None:
    book = Book(name="B", entries=tuple(Entry.new(i, key=[f"k{i}"], sticky=2) for i in range(4)))
    _plan(book).positions_of_key("B.1")
    twice = ScanCache().plan({"B": book}, BookSelection(global_names=("B", "B")), Settings())
    assert twice is not None and len(twice.keys) == 8
    assert not distinct_keys(twice)
    h = twice.ensure_hash(5)
    first = twice.keys.index(twice.keys[5])
    assert twice.find_record("B.0", str(h)) == first < 5
    assert sorted(twice.by_hash[h]) == [first, 5]


def test_a_book_with_an_untrusted_entry_keeps_nothing() -> None:
    from worldinfo.types import Origin

    entries = [Entry.new(i, key=[f"k{i}"], sticky=2) for i in range(4)]
    entries[2] = Entry(data=entries[2].data, origin=Origin(trusted=False))
    book = Book(name="B", entries=tuple(entries))
    _plan(book).positions_of_key("B.1")
    assert not distinct_keys(_plan(book))


def _book(rng: random.Random, name: str = "B") -> Book:
    """A few entries: some with odd or shared uids, some exact copies of another."""
    pool: list[JSONValue] = [0, 1, None, math.nan, math.inf, "x", 1.0, [1], [None], [math.nan]]
    odd = rng.random() < 0.5
    entries: list[Entry] = []
    for i in range(rng.randint(3, 9)):
        if entries and rng.random() < (0.3 if odd else 0.1):
            entries.append(Entry(data=dict(rng.choice(entries).data)))
            continue
        data: dict[str, JSONValue] = {
            "uid": rng.choice(pool) if odd and rng.random() < 0.5 else i + 10,
            "key": [rng.choice(WORDS)],
            "content": f"{name}{i}",
            "order": rng.choice((100, 50)),
            "sticky": rng.choice((0, 0, 1, 2, 3)),
            "cooldown": rng.choice((0, 0, 1, 2)),
        }
        if rng.random() < 0.3:
            data["group"] = "g"
        if rng.random() < 0.2:
            data["delay"] = rng.choice((1, 2, 4))
        entries.append(Entry(data=data))
    return Book(name=name, entries=tuple(entries))


def _edit(rng: random.Random, state: Any, book: Book) -> None:
    """Point a record at another entry's hash, a string, a missing hash; or drop it."""
    hashes: list[JSONValue] = [*_hashes(book), 12345, "garbage", None]
    for t in ("sticky", "cooldown"):
        records = state.get(t) if isinstance(state, dict) else None
        if not isinstance(records, dict):
            continue
        for key in sorted(records):
            roll = rng.random()
            if roll < 0.3:
                records[key]["hash"] = rng.choice(hashes)
            elif roll < 0.4:
                records[key]["hash"] = str(records[key].get("hash"))
            elif roll < 0.5:
                del records[key]
        if rng.random() < 0.3:
            records[f"B.{rng.choice((0, 1, 10, 11, 'null'))}"] = {
                "hash": rng.choice(hashes),
                "start": 0,
                "end": rng.choice((2, 5, 9)),
                "protected": rng.random() < 0.3,
            }


def _session(books: dict[str, Book], chat: list[Any], metadata: Any, *, fast: bool) -> Session:
    session = Session(
        books=books,
        settings=Settings(depth=2),
        global_books=["B"],
        chat=list(chat),
        rng=random.Random(7).random,
    )
    session.chat_metadata.update(copy.deepcopy(metadata))
    if not fast:
        session.scan_cache = None
    return session


def _play(seed: int, *, fast: bool) -> list[Any]:
    """Turns of a chat over a generated book; between turns records are edited, the session
    started again over the same books, an entry changed (a new book), dry runs made."""
    rng = random.Random(seed)
    books = {"B": _book(rng)}
    chat = [message({"name": "User", "is_user": True, "mes": "hello"})]
    session = _session(books, chat, {}, fast=fast)
    out = []
    for _ in range(8):
        roll = rng.random()
        if roll < 0.2:
            _edit(rng, session.chat_metadata.get("timedWorldInfo"), books["B"])
        elif roll < 0.4:  # a new session over the same book objects
            session = _session(books, session.chat, session.chat_metadata, fast=fast)
        elif roll < 0.5:  # one entry changed: a new book
            old = books["B"].entries or ()
            i = rng.randrange(len(old))
            changed = Entry(data={**old[i].data, "content": f"changed{i}"})
            books = {"B": Book(name="B", entries=(*old[:i], changed, *old[i + 1 :]))}
            session.books = books
        text = " ".join(rng.sample(WORDS, rng.randint(0, 3)))
        result = session.generate(
            "normal",
            append=[message({"name": "User", "is_user": True, "mes": text})],
            dry_run=rng.random() < 0.15,
        )
        out.append(
            (
                canonical(result.to_json()),
                [canonical(dict(e)) for e in result.activated],
                canonical(session.chat_metadata),
            )
        )
    return out


@pytest.mark.parametrize("seed", range(60))
def test_records_over_later_turns_equal_straightforward(seed: int) -> None:
    assert _play(seed, fast=True) == _play(seed, fast=False)


def test_hash_positions_reads_values_as_strict_equality_does() -> None:
    from worldinfo.engine.fast.scan import dynamic_positions, hash_positions

    book = Book(name="B", entries=tuple(Entry.new(i, key=[f"k{i}"]) for i in range(3)))
    plan = _plan(book)
    plan.ensure_all_hashes()
    h = _hashes(book)
    odd: list[JSONValue] = [True, False, 2.5, math.nan, math.inf, str(h[0]), None, [h[0]]]
    assert hash_positions(plan, odd) == set()
    assert hash_positions(plan, [h[2], float(h[1]), *odd]) == {1, 2}
    active: dict[str, list[JSONValue]] = {"sticky": [h[0]], "cooldown": [], "delay": [h[2]]}
    assert dynamic_positions(plan, active, {"B.1": object()}) == {0, 1, 2}
