"""Regex key outcomes kept across passes and turns: the same results as the straightforward
path on regex-heavy books, fewer regex runs, and bounded memory."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from worldinfo import RegexLimits
from worldinfo._js import canonical
from worldinfo._js.regex import RegexKey, regex_key
from worldinfo.conformance import generate as gen
from worldinfo.conformance.st import message, observed, session_for
from worldinfo.engine.regex_outcomes import RegexOutcomes
from worldinfo.session import Session
from worldinfo.types import Book, Entry, Message

_SHAPES = (
    "/\\b{k}s?\\b/i",
    "/\\b(?:{k}|{k}zz)\\b/i",
    "/(?<![\\w-]){k}(?![\\w-])/",
    "/^.*\\b{k}\\b.*$/m",
    "/(?:{k}){{1,2}}/u",
    "/{k}.{{0,3}}/is",  # sees line breaks: kept per whole text
    "/(?:the|a) {k}|{k}$/i",  # $ without m: kept per whole text
    "/[\\s\\S]{{0,2}}{k}/",
    "/{k}|x*/",  # no needle: always tested
)


def regex_heavy(seed: int, *, share: float) -> dict[str, Any]:
    """A generated case whose entries have, with probability ``share``, regex keys."""
    rng = random.Random(seed)
    c = gen.case(name=f"rx{seed}", entries=rng.choice((80, 200)), messages=20, seed=seed)
    for e in c["books"]["Bench"]["entries"].values():
        if rng.random() < share:
            keys = e["key"]
            e["key"] = [
                rng.choice(_SHAPES).format(k=k) if k.isalnum() else k
                for k in keys
                if isinstance(k, str)
            ] or keys
    extra = gen.chat(3, seed + 50, vocab=100)
    c["settings"]["depth"] = rng.choice((2, 5, 10))
    c["steps"] = [
        {"type": "normal"},
        {"type": "normal", "append": extra[:1]},
        {"type": "regenerate"},
        {"type": "normal", "append": extra[1:]},
    ]
    return c


def run(case: dict[str, Any], *, fast: bool) -> list[Any]:
    session = session_for(case)
    # The per-scan regex budget is wall-clock: on a loaded machine compiling hundreds of
    # keys in a first scan can use it up, and skipped keys would make the paths differ.
    session.regex_limits = RegexLimits(per_scan=600.0)
    if not fast:
        session.scan_cache = None
    out = []
    for step in case["steps"]:
        append = [message(m) for m in step.get("append") or ()]
        result = session.generate(step["type"], append=append)
        out.append(canonical(observed(session, result)))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_regex_heavy_fast_equals_straightforward(seed: int) -> None:
    case = regex_heavy(seed, share=(0.1, 0.5, 0.9)[seed % 3])
    assert run(case, fast=True) == run(case, fast=False)


@pytest.fixture
def tests_run(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """``(key, text)`` of every ``RegexKey.test`` that ran, in order."""
    ran: list[tuple[str, str]] = []
    original = RegexKey.test

    def counting(self: RegexKey, haystack: str, *, timeout: float = 0.25) -> bool:
        ran.append((self.key, haystack))
        return original(self, haystack, timeout=timeout)

    monkeypatch.setattr(RegexKey, "test", counting)
    yield ran


def _session(keys: list[str], chat: str) -> Session:
    entries = tuple(Entry.new(i, key=[k], content=f"c{i}") for i, k in enumerate(keys))
    return Session(
        books={"b": Book(name="b", entries=entries)},
        global_books=["b"],
        chat=[Message(name="U", mes=chat, is_user=True)],
    )


def test_outcomes_are_reused_across_passes_and_turns(tests_run: list[tuple[str, str]]) -> None:
    local, whole = "/\\bdragons?\\b/i", "/dragon.{0,3}den/s"
    assert regex_key(local).line_local and not regex_key(whole).line_local  # type: ignore[union-attr]
    session = _session([local, whole], "a Dragon\nnear the dragon den")
    first = session.generate()
    assert [e["uid"] for e in first.activated] == [0, 1]
    ran = len(tests_run)
    assert ran >= 2
    session.generate("regenerate")  # the same scan texts: nothing runs again
    assert len(tests_run) == ran
    session.generate(append=[Message(name="A", mes="no wyrm here")])
    new = tests_run[ran:]
    # The line-local key runs on no line (the new one lacks "dragon", the old ones are
    # known); the other key runs once on the new whole text.
    assert [k for k, _ in new] == [whole]


def test_a_line_without_a_needle_is_not_run(tests_run: list[tuple[str, str]]) -> None:
    session = _session(["/(?:wyrm|drake)s?/"], "one\ntwo drakes\nthree")
    assert [e["uid"] for e in session.generate().activated] == [0]
    assert [text for _, text in tests_run] == ["two drakes"]


def test_memory_is_bounded() -> None:
    key = regex_key("/ab?c/")
    assert key is not None
    out = RegexOutcomes(max_texts=5, max_chars=10_000, max_outcomes=100)
    for i in range(50):
        assert out.test(key, f"xx ac {i}", lambda t: key.test(t)) is True
    assert len(out) <= 5
    small = RegexOutcomes(max_texts=100, max_chars=20, max_outcomes=100)
    for i in range(50):
        small.test(key, f"abc{i:03d}", lambda t: key.test(t))
    assert len(small) <= 20 // 6
    assert RegexOutcomes(max_chars=3).test(key, "abc!", lambda t: key.test(t)) is True


def test_undecided_outcomes_are_not_kept() -> None:
    key = regex_key("/ab?c/")
    assert key is not None
    out = RegexOutcomes()
    calls: list[str] = []

    def stall(text: str) -> bool | None:
        calls.append(text)
        return None

    assert out.test(key, "abc", stall) is False
    assert out.test(key, "abc", stall) is False
    assert calls == ["abc", "abc"] and len(out) == 0
