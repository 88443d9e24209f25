"""The scan cache: decorated entries per book version and plans per book selection.

``ScanCache`` (owned by ``Session``, passed to ``check``) keeps, per book name, the decorated
entry of every ``Entry`` object it has seen, and per book selection a ``Plan`` (``plan``).
Books and entries are immutable values: a changed book is a new ``Book`` object, and only its
new ``Entry`` objects are decorated and hashed again. Mutating ``Entry.data`` in place is not
detected (``port.yaml``).
"""

from __future__ import annotations

from collections.abc import Mapping

from worldinfo import _js
from worldinfo._collector import collector_paused
from worldinfo._js import JSONValue
from worldinfo.engine import gathering
from worldinfo.engine.fast.build import build_plan
from worldinfo.engine.fast.origins import BookMemo, Origins
from worldinfo.engine.fast.plan import Plan
from worldinfo.engine.fast.slots import Gate
from worldinfo.engine.gathering import BookSelection, SelectedBooks, select_books
from worldinfo.engine.regex_limits import RegexClock
from worldinfo.engine.regex_outcomes import RegexOutcomes
from worldinfo.trust import (
    DEFAULT_TRUST,
    TrustPolicy,
    book_has_untrusted,
    untrusted_entries,
    untrusted_keys,
)
from worldinfo.types import Book, RawEntry, Settings

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import cast
else:
    from worldinfo._lazy import cast

MAX_PLANS = 4
"""Plans kept at once (one per book selection and scan settings); more clears them all."""


class ScanCache:
    """Decorated entries per book version and plans per selection, kept across scans."""

    def __init__(self) -> None:
        self._books: dict[str, BookMemo] = {}
        self._plans: dict[tuple[object, ...], Plan] = {}
        self._trust = DEFAULT_TRUST
        self.regex_outcomes = RegexOutcomes()
        """Regex key outcomes by text, kept across scans and books (``regex_outcomes``)."""

    def plan(
        self,
        books: Mapping[str, Book],
        selection: BookSelection,
        settings: Settings,
        *,
        trust: TrustPolicy = DEFAULT_TRUST,
        regex: RegexClock | None = None,
    ) -> Plan | None:
        """The plan for this selection; ``None`` when a selected book has no ``entries``.

        Compiling the regex keys of a new plan is charged to ``regex`` (the scan's clock);
        once it is spent, the remaining regex keys are left to the scan (``UNKNOWN``).
        """
        if trust != self._trust:  # untrusted entries are prepared under the policy
            self._books.clear()
            self._plans.clear()
            self._trust = trust
        selected = select_books(selection, books)
        names = selected.all_names()
        chosen = tuple(books.get(n) for n in names)
        if any(b is not None and b.entries is None for b in chosen):
            return None
        strategy = settings.character_strategy
        merge = 1 if _js.strict_eq(strategy, 1) else 2 if _js.strict_eq(strategy, 2) else 0
        case = _js.truthy(settings.case_sensitive)
        whole = _js.truthy(settings.match_whole_words)
        key = (selected, merge, case, whole)
        plan = self._plans.get(key)
        if plan is None or any(a is not b for a, b in zip(plan.books, chosen, strict=True)):
            for name in [n for n in self._books if n not in books]:
                del self._books[name]
            with collector_paused():  # ~10^4 containers: no collection walks the book
                plan = self._build(selected, books, strategy, settings, regex or RegexClock())
            plan.books = chosen
            if key not in self._plans and len(self._plans) >= MAX_PLANS:
                self._plans.clear()
            self._plans[key] = plan
        return plan

    def forget_lines(self) -> None:
        """Forget which keys each line of text holds (for measuring scans of unseen text)."""
        for plan in self._plans.values():
            plan.needles.forget_lines()
            plan.facts.recent.forget()
        self.regex_outcomes.forget()

    def _memo(self, name: str, book: Book | None) -> BookMemo | None:
        """The memo of the book under ``name``: kept while it is the same ``Book`` object,
        a new one (with the hashes of the ``Entry`` objects it keeps) when it changes."""
        if book is None or book.entries is None:
            return None
        cached = self._books.get(name)
        if cached is None or cached.book is not book:
            cached = self._books[name] = BookMemo.after(book, cached)
        return cached

    def _build(
        self,
        selected: SelectedBooks,
        books: Mapping[str, Book],
        strategy: JSONValue,
        settings: Settings,
        regex: RegexClock,
    ) -> Plan:
        stored: list[BookMemo] = []  # in the order loaded (about their order in memory)
        untrusted: set[int] = set()

        def load(name: str, book: Book | None) -> list[RawEntry]:
            # What the sort reads of an entry object is its ``order`` (the object is built
            # from the stored entry only when a scan reads it): the stored fields stand in
            # for it. ``stored`` is the four lore lists one after the other, as
            # ``merge_order`` indexes them.
            memo = self._memo(name, book)
            if memo is None:
                return []
            if book is not None and book_has_untrusted(book):
                untrusted.update(id(e) for e in untrusted_entries(book.entries or ()))
            stored.append(memo)
            return cast("list[RawEntry]", [e.data for e in memo.entries])  # a slot read

        lore = gathering.load_lore(selected, books, trust=self._trust, entries_of=load)
        assert lore is not None  # plan() returned None already for a book without entries
        perm = gathering.merge_order(
            global_entries=lore.global_entries,
            character_entries=lore.character_entries,
            chat_entries=lore.chat_entries,
            persona_entries=lore.persona_entries,
            strategy=strategy,
        )
        loaded = Origins.of(stored)
        origins = loaded.taken(perm)
        keys = untrusted_keys(books.get(n) for n in selected.all_names())
        gate = Gate(policy=self._trust, untrusted=keys, regex=regex)
        each = (loaded, perm) if len(perm) == len(loaded) else None  # each index once
        return build_plan(origins, settings, gate=gate, untrusted=frozenset(untrusted), stored=each)
