"""The scan cache keeps an entry's hash by its ``Entry`` object and book name, across plans
and book versions (``fast.origins.BookMemo``), and never hands an entry a hash (or a
``world``) of another version: the fast path answers as the straightforward one."""

from __future__ import annotations

import random

from worldinfo.engine.fast.cache import ScanCache
from worldinfo.engine.fast.origins import UNHASHED, BookMemo
from worldinfo.engine.fast.plan import Plan
from worldinfo.engine.gathering import BookSelection, decorated_object, entry_hash
from worldinfo.session import Session
from worldinfo.trust import DEFAULT_TRUST, TrustPolicy
from worldinfo.types import Book, Entry, Message, Settings

SELECTION = BookSelection(global_names=["B"])


def _entries(n: int, tag: str = "") -> list[Entry]:
    return [Entry.new(i, key=["dragon", f"w{i}"], content=f"{tag}C{i}") for i in range(n)]


def _plan(cache: ScanCache, books: dict[str, Book], trust: TrustPolicy = DEFAULT_TRUST) -> Plan:
    plan = cache.plan(books, SELECTION, Settings(), trust=trust)
    assert plan is not None
    return plan


def _known(plan: Plan) -> list[int]:
    """Each position's memo cell (``UNHASHED`` where no hash is known)."""
    o = plan.origins
    return [o.memos[p][o.cells[p]] for p in range(len(o))]


def _reference(plan: Plan, world: str) -> list[int]:
    """The hash the straightforward path gives each position's entry."""
    return [entry_hash(decorated_object(e, world)) for e in plan.origins.entries]


def test_hashes_of_kept_entries_carry_over_to_a_changed_book() -> None:
    cache = ScanCache()
    old = _entries(12)
    first = _plan(cache, {"B": Book(name="B", entries=tuple(old))})
    first.ensure_all_hashes()
    rng = random.Random(3)
    kept = set(rng.sample(range(12), 7))
    changed = [
        e if i in kept else Entry(data={**e.data, "content": "new"}) for i, e in enumerate(old)
    ]
    changed.append(Entry.new(99, key=["x"], content="added"))
    rng.shuffle(changed)
    second = _plan(cache, {"B": Book(name="B", entries=tuple(changed))})
    assert second is not first
    ids = {id(old[i]) for i in kept}
    for entry, known, want in zip(
        second.origins.entries, _known(second), _reference(second, "B"), strict=True
    ):
        assert known == (want if id(entry) in ids else UNHASHED)
    second.ensure_all_hashes()
    assert _known(second) == _reference(second, "B")


def test_an_unchanged_book_keeps_its_memo_across_plans() -> None:
    cache = ScanCache()
    books = {"B": Book(name="B", entries=tuple(_entries(5)))}
    plan = _plan(cache, books)
    plan.ensure_hash(2)
    other = cache.plan(books, SELECTION, Settings(case_sensitive=True))  # another plan
    assert other is not None and other is not plan
    assert other.origins.memos[2] is plan.origins.memos[2]
    assert _known(other)[2] == _reference(plan, "B")[2]


def test_a_renamed_book_gives_its_entries_the_new_name_and_hash() -> None:
    """Same ``Entry`` objects, another book name under the same key: ``world`` and the hash
    are the new book's (the base kept the old book's origins)."""
    entries = tuple(_entries(3))

    def run(*, cached: bool) -> list[tuple[object, object]]:
        session = Session(books={"B": Book(name="B", entries=entries)}, global_books=["B"])
        if not cached:
            session.scan_cache = None
        session.chat.append(Message(name="User", mes="a dragon", is_user=True))
        session.generate("normal")
        session.books["B"] = Book(name="Other", entries=entries)
        result = session.generate("normal")
        return [(e.get("world"), e.get("hash")) for e in result.activated]

    fast = run(cached=True)
    assert fast == run(cached=False)
    assert {w for w, _ in fast} == {"Other"}


def test_a_book_dropped_and_added_again_starts_a_new_memo() -> None:
    cache = ScanCache()
    book = Book(name="B", entries=tuple(_entries(4)))
    plan = _plan(cache, {"B": book})
    plan.ensure_all_hashes()
    assert cache.plan({}, BookSelection(), Settings()) is not None  # "B" is dropped
    again = _plan(cache, {"B": Book(name="B", entries=book.entries)})  # a new Book object
    assert again is not plan
    assert set(_known(again)) == {UNHASHED}
    again.ensure_all_hashes()
    assert _known(again) == _known(plan)


def test_a_trust_policy_change_starts_new_memos() -> None:
    cache = ScanCache()
    books = {"B": Book(name="B", entries=tuple(_entries(4)))}
    plan = _plan(cache, books)
    plan.ensure_all_hashes()
    other = _plan(cache, books, trust=TrustPolicy(allow_regex_keys=True))
    assert set(_known(other)) == {UNHASHED}
    assert other.origins.memos[0] is not plan.origins.memos[0]


def test_the_plan_writes_its_hashes_into_the_book_memo() -> None:
    cache = ScanCache()
    books = {"B": Book(name="B", entries=tuple(_entries(4)))}
    _plan(cache, books).ensure_all_hashes()
    memo = cache._books["B"]
    assert isinstance(memo, BookMemo)
    assert list(memo.hashes) == [entry_hash(decorated_object(e, "B")) for e in memo.entries]
