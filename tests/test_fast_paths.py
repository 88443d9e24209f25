"""The fast scan path (prepared entries, key index, visiting only candidates) gives exactly
the straightforward path's results; its caches follow book, entry and settings changes."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any

import pytest

from worldinfo._js import canonical
from worldinfo.conformance import generate as gen
from worldinfo.conformance.st import message, observed, session_for
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.session import Session
from worldinfo.types import Book, Entry, Settings

SETTINGS_VARIANTS: list[dict[str, Any]] = [
    {},
    {"recursive": False},
    {"match_whole_words": True},
    {"case_sensitive": True},
    {"use_group_scoring": True},
    {"min_activations": 40, "min_activations_depth_max": 25, "depth": 1},
    {"depth": 0},
    {"max_recursion_steps": 2, "budget": 5},
    {"character_strategy": 0, "include_names": False},
]


def small_case(seed: int) -> dict[str, Any]:
    """A generated case with a few hundred entries and a short chat, settings varied."""
    rng = random.Random(seed)
    messages = 30 if seed % 7 else 1  # a fresh chat: entries with a delay are still delayed
    c = gen.case(name=f"s{seed}", entries=rng.choice((60, 150, 300)), messages=messages, seed=seed)
    if seed % 7 == 0:
        for i, e in enumerate(c["books"]["Bench"]["entries"].values()):
            if i % 15 == 0:
                e[("delay", "sticky", "cooldown")[i // 15 % 3]] = rng.choice((2, 3, 5))
    c["settings"].update(SETTINGS_VARIANTS[seed % len(SETTINGS_VARIANTS)])
    c["settings"]["depth"] = c["settings"].get("depth", rng.choice((2, 5, 10)))
    extra = gen.chat(4, seed + 100, vocab=150)
    c["steps"] = [
        {"type": "normal"},
        {"type": "normal", "append": extra[:2]},
        {"type": rng.choice(("continue", "swipe", "regenerate")), "append": extra[2:3]},
        {"type": "normal", "append": extra[3:], "dry_run": seed % 5 == 0},
    ]
    if seed % 3 == 0:
        c["books"]["Other"] = gen.book(40, seed + 7)
        c["character"] = {**gen.CHARACTER, "book": "Other"}
    return c


def run(case: Mapping[str, Any], *, fast: bool, trace: bool = False) -> list[Any]:
    session = session_for(case)
    if not fast:
        session.scan_cache = None
    out = []
    for i, step in enumerate(case["steps"]):
        force = [("Bench", i * 7)] if i == 2 else []
        result = session.generate(
            step["type"],
            append=[message(m) for m in step.get("append") or ()],
            dry_run=bool(step.get("dry_run")),
            force_activate=force,
            trace=trace,
        )
        record = canonical(observed(session, result))
        if trace and result.trace is not None:
            record["trace"] = canonical(result.trace.to_json())
        out.append(record)
    return out


@pytest.mark.parametrize("seed", range(60))
def test_fast_equals_straightforward(seed: int) -> None:
    case = small_case(seed)
    assert run(case, fast=True) == run(case, fast=False)


@pytest.mark.parametrize("seed", range(6))
def test_traced_fast_equals_straightforward(seed: int) -> None:
    case = small_case(1000 + seed)
    assert run(case, fast=True, trace=True) == run(case, fast=False, trace=True)


def test_long_chat_widening_equals_straightforward() -> None:
    case = gen.long_chat(entries=120, messages=300)
    case["settings"]["min_activations_depth_max"] = 200
    assert run(case, fast=True) == run(case, fast=False)


# --- cache invalidation -------------------------------------------------------------------


def _book(*entries: Entry) -> Book:
    return Book(name="B", entries=entries)


def _session(book: Book, chat: str, **settings: Any) -> Session:
    return Session(
        books={"B": book},
        settings=Settings(depth=5, **settings),
        global_books=["B"],
        chat=[message({"name": "User", "is_user": True, "mes": chat})],
        rng=random.Random(1).random,
    )


def _keys(session: Session) -> list[Any]:
    return [u for _, u in session.generate("normal").activated_keys]


def test_replaced_entry_is_prepared_again() -> None:
    a = Entry.new(1, key=["dragon"], content="A")
    b = Entry.new(2, key=["castle"], content="B")
    session = _session(_book(a, b), "a dragon and a knight")
    assert _keys(session) == [1]
    session.books["B"] = _book(a, Entry.new(2, key=["knight"], content="B"))
    assert _keys(session) == [1, 2]
    session.books["B"] = _book(Entry.new(1, key=["wyvern"], content="A"), b)
    assert _keys(session) == []


def test_edited_content_changes_the_hash_like_upstream() -> None:
    a = Entry.new(1, key=["dragon"], content="A", sticky=3)
    fast = _session(_book(a), "dragon")
    slow = _session(_book(a), "dragon")
    slow.scan_cache = None
    for session in (fast, slow):
        session.generate("normal")
        session.books["B"] = _book(Entry.new(1, key=["dragon"], content="A2", sticky=3))
        session.append([message({"name": "User", "is_user": True, "mes": "no match"})])
    assert canonical(fast.generate("normal").to_json()) == canonical(
        slow.generate("normal").to_json()
    )
    assert fast.chat_metadata == slow.chat_metadata


def test_settings_and_selection_changes_take_effect() -> None:
    a = Entry.new(1, key=["Dragon"], content="A")
    session = _session(_book(a), "a dragonfly")
    assert _keys(session) == [1]
    session.settings = dataclasses.replace(session.settings, case_sensitive=True)
    assert _keys(session) == []
    session.settings = dataclasses.replace(
        session.settings, case_sensitive=False, match_whole_words=True
    )
    assert _keys(session) == []
    session.global_books = []
    session.settings = dataclasses.replace(session.settings, match_whole_words=False)
    assert _keys(session) == []
    session.global_books = ["B"]
    assert _keys(session) == [1]


def test_activated_entries_are_copies_of_the_prepared_ones() -> None:
    a = Entry.new(1, key=["dragon"], content="{{user}} meets a dragon")
    cache = ScanCache()
    session = _session(_book(a), "dragon")
    session.scan_cache = cache
    first = session.generate("normal").activated[0]
    assert first["content"] == "User meets a dragon"
    plan = cache.plan(session.books, session.selection, session.settings)
    assert plan is not None
    assert plan.entries[0]["content"] == "{{user}} meets a dragon"
    second = session.generate("normal").activated[0]
    assert second is not first and second["content"] == "User meets a dragon"


def test_duplicate_selection_keeps_distinct_objects() -> None:
    a = Entry.new(1, key=["dragon"], content="A", probability=50)
    case_books = {"B": _book(a)}
    runs = []
    for cache in (True, False):
        session = Session(
            books=case_books,
            settings=Settings(depth=5),
            global_books=["B", "B"],
            chat=[message({"name": "U", "is_user": True, "mes": "dragon"})],
            rng=random.Random(3).random,
        )
        if not cache:
            session.scan_cache = None
        runs.append([canonical(session.generate("normal").to_json()) for _ in range(4)])
    assert runs[0] == runs[1]


def test_lazy_hashes_with_a_stored_hash_field_and_shared_templates() -> None:
    entries = (
        Entry.new(1, key=["dragon"], content="A", sticky=2, hash=12345),
        Entry.new(2, key=["castle"], content="B", cooldown=2),
        Entry.new(3, key=["dragon"], content="C", delay=3),
    )
    records = []
    for fast in (True, False):
        session = _session(_book(*entries), "dragon castle")
        if not fast:
            session.scan_cache = None
        out = []
        for globals_ in (["B"], ["B", "B"], ["B"], ["B", "B"], ["B"]):
            session.global_books = globals_
            result = session.generate("normal")
            out.append(
                (
                    canonical(result.to_json()),
                    [dict(e) for e in result.activated],
                    canonical(session.chat_metadata),
                )
            )
            session.append([message({"name": "User", "is_user": True, "mes": "dragon"})])
        records.append(out)
    assert records[0] == records[1]


def test_regex_prefilter_literal_is_in_every_match() -> None:
    """Soundness of the regex prefilter: whenever a key matches, its literal is present."""
    from worldinfo._js.regex import regex_key
    from worldinfo.engine.fast.matcher import required_literal

    rng = random.Random(5)
    atoms = ["a", "b", "B", "x", "-", "\\b", "\\w", "\\d", "\\s", ".", "[ab]", "[^a]", "\\.", "]"]
    alphabet = "aAbBx- .\n\x01-_9"
    checked = 0
    for _ in range(3000):
        body = "".join(
            rng.choice(atoms) + rng.choice(["", "", "?", "*", "+", "+?"]) for _ in range(4)
        )
        flags = rng.choice(["", "i", "g", "iy", "u", "m"])
        key = regex_key(f"/{body}/{flags}")
        if key is None:
            continue
        found = required_literal(key.source, key.flags)
        if found is None:
            continue
        literal, lowered = found
        for _ in range(20):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 12)))
            if key.test(text):
                checked += 1
                assert literal in (text.lower() if lowered else text), (body, flags, text)
    assert checked > 500


def test_key_index_finds_exactly_what_match_key_finds() -> None:
    from worldinfo.engine.buffer import whole_word_in
    from worldinfo.engine.fast.matcher import KeyIndex, Needle

    rng = random.Random(9)
    alphabet = "abAB_1 -.éΣς"
    index = KeyIndex()
    needles = []
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 7)))
        lowered = rng.random() < 0.5
        text = text.lower() if lowered else text
        needle = Needle(text=text, lowered=lowered, whole_word=rng.random() < 0.5)
        needles.append((index.add(needle), needle))
    for _ in range(300):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))
        got = index.found(line)
        for nid, n in needles:
            hay = line.lower() if n.lowered else line
            want = whole_word_in(hay, n.text) if n.whole_word else n.text in hay
            assert (nid in got) == want, (line, n)


def test_world_is_the_book_name_not_the_mapping_key() -> None:
    a = Entry.new(1, key=["dragon"], content="A", sticky=2)
    out = []
    for fast in (True, False):
        session = Session(
            books={"Alias": Book(name="Real", entries=(a,))},
            global_books=["Alias"],
            chat=[message({"name": "U", "is_user": True, "mes": "dragon"})],
            rng=random.Random(1).random,
        )
        if not fast:
            session.scan_cache = None
        result = session.generate("normal")
        out.append(([dict(e) for e in result.activated], canonical(session.chat_metadata)))
    assert out[0] == out[1]
