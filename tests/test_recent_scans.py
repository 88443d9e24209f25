"""What a plan keeps from recent scans (``engine/fast/recent.py``: key ids per text, unions,
recursion texts, assembled pieces; the visit lists) never changes a result: scans repeated,
edited, reverted and renamed give the straightforward path's results, step by step."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from worldinfo import Book, Message, Persona, Session, _js
from worldinfo.conformance import generate as gen
from worldinfo.conformance.st import observed
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.engine.fast.matcher import KeyIndex
from worldinfo.engine.fast.recent import KEEP, RecentTexts
from worldinfo.types import Settings

Edit = Callable[[Session], None]


def _book(seed: int) -> Book:
    raw = gen.book(200, seed)
    for i, e in enumerate(raw["entries"].values()):
        if i % 9 == 0:  # a macro: the scan writes the substituted content to a copy
            e["content"] = "Told to {{user}}: " + e["content"]
        if i % 23 == 0:
            e["sticky"] = 2
    return Book.from_json("Bench", raw)


def _session(seed: int, *, budget: int, fast: bool) -> Session:
    chat = gen.chat(12, seed, vocab=200)
    session = Session(
        books={"Bench": _book(seed)},
        settings=Settings(depth=6, budget=budget, recursive=True),
        global_books=["Bench"],
        chat=[Message(name=m["name"], mes=m["mes"], is_user=m["is_user"]) for m in chat],
        max_context=4096,
        rng=random.Random(seed).random,
    )
    if not fast:
        session.scan_cache = None
    return session


def _set_last(text: str) -> Edit:
    def edit(session: Session) -> None:
        last = session.chat[-1]
        session.chat[-1] = Message(name=last.name, mes=text, is_user=last.is_user)

    return edit


def _rename(name: str) -> Edit:
    def edit(session: Session) -> None:
        session.persona = Persona(name=name)

    return edit


def _same(session: Session) -> None:
    del session


def _edits(session: Session) -> list[Edit]:
    old = session.chat[-1].mes
    new = " ".join(reversed(old.split()))
    return [_same, _same, _set_last(new), _same, _set_last(old), _rename("Bob"), _same]


@pytest.mark.parametrize("budget", [2, 100])  # overflowing, and not
@pytest.mark.parametrize("seed", range(4))
def test_repeated_and_edited_scans_equal_the_straightforward_path(seed: int, budget: int) -> None:
    fast, slow = _session(seed, budget=budget, fast=True), _session(seed, budget=budget, fast=False)
    for step, (edit_fast, edit_slow) in enumerate(zip(_edits(fast), _edits(slow), strict=True)):
        edit_fast(fast)
        edit_slow(slow)
        swipe = "swipe" if step % 3 == 2 else "normal"
        got = _js.canonical(observed(fast, fast.generate(swipe)))
        want = _js.canonical(observed(slow, slow.generate(swipe)))
        assert got == want, f"step {step}"


def test_unseen_scans_forget_what_recent_scans_found() -> None:
    session, slow = _session(1, budget=100, fast=True), _session(1, budget=100, fast=False)
    cache = session.scan_cache
    assert isinstance(cache, ScanCache)
    got = [_js.canonical(observed(session, session.generate("normal")))]
    (plan,) = cache._plans.values()
    assert len(plan.facts.recent) > 0
    cache.forget_lines()
    assert len(plan.facts.recent) == 0
    got.append(_js.canonical(observed(session, session.generate("normal"))))
    want = [_js.canonical(observed(slow, slow.generate("normal"))) for _ in range(2)]
    assert got == want


def test_recent_texts_are_keyed_by_value_and_bounded() -> None:
    index = KeyIndex()
    index.add_text("dragon", lowered=True, whole_word=False)
    index.freeze()
    recent = RecentTexts()
    texts = ("a dragon", "b")
    assert recent.ids(index, texts) is None
    kept = recent.keep_ids(texts, frozenset(index.found_all(texts)))
    assert recent.ids(index, ("a drag" + "on", "b")) is kept  # equal texts, other objects
    assert recent.ids(index, ("a dragon",)) is None
    a, b = frozenset({1}), frozenset({2})
    assert recent.union(index, (a, b)) is recent.union(index, (frozenset({1}), b))
    assert recent.union(index, (a, b)) == {1, 2}
    for i in range(KEEP + 1):
        recent.keep_ids((str(i),), frozenset())
    assert recent.ids(index, texts) is None  # the table was cleared, not grown
    recent.keep_ids(texts, kept)
    index.add_text("castle", lowered=True, whole_word=False)  # a new needle: ids may lack it
    assert recent.ids(index, texts) is None
    joined = recent.joined(("x", "y"))
    assert joined == "x\ny" and recent.joined(("x", "y")) is joined
