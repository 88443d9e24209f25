"""Each activation rule has one definition, used by both scan paths.

A rule is changed through its single definition (``worldinfo.engine.entry_rules``) and both
the straightforward path (``Session.scan_cache = None``) and the fast path (prepared plan,
key index) must follow the change: neither path keeps a private copy of the rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from worldinfo import Book, Message, Session
from worldinfo.engine import entry_rules, gathering
from worldinfo.lint import lint
from worldinfo.types import Entry


def _book() -> Book:
    entries = [
        # secondary AND_ANY: fires only when "moon" is present too
        Entry.new(0, key=["dragon"], keysecondary=["moon"], selective=True, content="D"),
        # case: lower-case key against "Castle"
        Entry.new(1, key=["castle"], content="C"),
        # constant
        Entry.new(2, key=["nothing-matches-this"], constant=True, content="K"),
    ]
    return Book(name="B", entries=tuple(entries))


def _fired(*, fast: bool) -> set[int]:
    session = Session(books={"B": _book()}, global_books=["B"], rng=lambda: 0.5)
    if not fast:
        session.scan_cache = None
    session.chat.append(Message(name="User", mes="A dragon flew over the Castle.", is_user=True))
    result = session.generate("normal")
    return {int(str(e["uid"])) for e in result.activated}


def _both() -> tuple[set[int], set[int]]:
    return _fired(fast=False), _fired(fast=True)


def test_both_paths_agree_on_the_book() -> None:
    assert _both() == ({1, 2}, {1, 2})


def _always_holds(logic: int, hits: Iterable[bool]) -> bool:
    del logic
    list(hits)
    return True


RULES: list[tuple[str, Callable[..., object], int, bool]] = [
    # (rule, replacement, uid affected, does the change make it fire?)
    ("secondary_holds", _always_holds, 0, True),
    ("case_sensitive", lambda _entry, _settings: True, 1, False),
    ("is_constant", lambda _entry: False, 2, False),
    ("is_disabled", lambda entry: entry.get("uid") == 1, 1, False),
]


@pytest.mark.parametrize(("rule", "replacement", "uid", "fires"), RULES, ids=[r[0] for r in RULES])
def test_a_rule_changed_once_changes_both_paths(
    monkeypatch: pytest.MonkeyPatch,
    rule: str,
    replacement: Callable[..., object],
    uid: int,
    fires: bool,
) -> None:
    before = _both()
    assert all((uid in got) != fires for got in before)
    monkeypatch.setattr(entry_rules, rule, replacement)
    slow, fast = _both()
    assert (uid in slow) == fires, "the straightforward path ignored the rule's definition"
    assert (uid in fast) == fires, "the fast path keeps its own copy of the rule"
    assert slow == fast


def test_the_decorator_list_is_shared_by_the_scan_and_lint(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = Entry.new(0, key=["dragon"], content="@@dont_activate\nD")
    book = Book(name="B", entries=(entry,))

    def scan_fires() -> bool:
        session = Session(books={"B": book}, global_books=["B"], rng=lambda: 0.5)
        session.chat.append(Message(name="User", mes="a dragon", is_user=True))
        return bool(session.generate("normal").activated)

    def lint_codes() -> set[str]:
        return {f.code for f in lint([book])}

    assert not scan_fires()
    assert "WI100" not in lint_codes()
    monkeypatch.setattr(gathering, "KNOWN_DECORATORS", ("@@activate",))
    assert scan_fires(), "the scan keeps its own decorator list"
    assert "WI100" in lint_codes(), "lint keeps its own decorator list"


def test_book_gathering_and_sorting_are_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both paths gather through ``gathering.load_lore`` and sort with ``merge_order``."""
    merge = gathering.merge_order

    def last_only(**lists: Any) -> list[int]:
        return merge(**lists)[-1:]  # keep only the last entry in scan order (uid 2)

    monkeypatch.setattr(gathering, "merge_order", last_only)
    assert _both() == ({2}, {2})
