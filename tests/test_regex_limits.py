"""Regex keys are bounded: a total per scan, no re-run of a key that timed out on the same
text, short warnings, and refusal of patterns too large to compile. Behaviour only: the tests
count key tests and read warnings (an injected clock, never the wall clock)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from worldinfo import Book, BookSelection, Message, RegexLimits, Session, Settings, check
from worldinfo._js.regex import (
    KEY_SHOWN,
    MAX_BRANCHES,
    MAX_PATTERN,
    RegexKey,
    RegexTimeout,
    regex_key,
)
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.engine.regex_limits import TimeoutMemo
from worldinfo.lint.regex import diagnose
from worldinfo.types import Entry

RUN = "x" * 40 + "!"


class StepClock:
    """A clock that advances ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def tests_run(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The keys whose ``RegexKey.test`` ran, in order."""
    ran: list[str] = []
    original = RegexKey.test

    def counting(self: RegexKey, haystack: str, *, timeout: float = 0.25) -> bool:
        ran.append(self.key)
        return original(self, haystack, timeout=timeout)

    monkeypatch.setattr(RegexKey, "test", counting)
    yield ran


def book_of(keys: list[str]) -> Book:
    entries = tuple(Entry.new(i, key=[k], content=f"c{i}") for i, k in enumerate(keys))
    return Book(name="b", entries=entries)


def scan(b: Book, chat: list[str], *, limits: RegexLimits, fast: bool) -> Any:
    return check(
        {b.name: b},
        chat,
        selection=BookSelection(global_names=(b.name,)),
        settings=Settings(),
        max_context=8192,
        rng=lambda: 0.5,
        cache=ScanCache() if fast else None,
        regex_limits=limits,
    )


# distinct, cheap keys the required-literal prefilter cannot skip (they hold a group)
KEYS = [f"/(?:weather|zz{i})/" for i in range(10)]


def test_scan_total_stops_regex_tests(tests_run: list[str]) -> None:
    # every clock read advances 0.3 s: a compile or a test "costs" 0.3 s
    limits = RegexLimits(per_scan=1.0, clock=StepClock(0.3))
    regex_key.cache_clear()
    result = scan(book_of(KEYS), ["the weather"], limits=limits, fast=False)
    # compile 0.3, test 0.6, compile 0.9, test 1.2: then the total is spent
    assert tests_run == KEYS[:2]
    assert [e["uid"] for e in result.activated] == [0, 1]
    assert result.warnings[-1].endswith("8 regex key test(s) skipped (counted as no match)")
    assert "1 s per scan used up" in result.warnings[-1]


def test_scan_total_also_bounds_the_fast_path(tests_run: list[str]) -> None:
    limits = RegexLimits(per_scan=1.0, clock=StepClock(0.3))
    regex_key.cache_clear()
    result = scan(book_of(KEYS), ["the weather"], limits=limits, fast=True)
    assert len(tests_run) <= 2
    assert len(result.activated) <= 2
    assert "used up" in result.warnings[-1]


def test_generous_total_changes_nothing(tests_run: list[str]) -> None:
    for fast in (False, True):
        result = scan(book_of(KEYS), ["the weather"], limits=RegexLimits(), fast=fast)
        assert [e["uid"] for e in result.activated] == list(range(10))
        assert result.warnings == ()


def test_timed_out_key_is_not_rerun_on_the_same_text(tests_run: list[str]) -> None:
    key = "/(x|xx)+y7/"  # exponential on a run of x; its needle "y7" is in the text
    b = book_of([key, "weather"])
    session = Session(
        books={"b": b},
        global_books=["b"],
        chat=[Message(name="U", mes=f"weather y7 {RUN}", is_user=True)],
        regex_limits=RegexLimits(per_key=0.01, per_scan=10.0),
    )
    first = session.generate()
    assert tests_run == [key]
    assert any(w.startswith("regex key timed out: book 'b', entry 0") for w in first.warnings)
    assert len(session.regex_memo) == 1
    again = session.generate("regenerate")  # the same scan text
    assert tests_run == [key]  # not run again
    assert any("timed out on this text before, not run again" in w for w in again.warnings)
    assert [e["uid"] for e in again.activated] == [1]
    # A new scan text: the key can match within one line only (line-local), so it is run
    # on lines, and the line it timed out on is not run again; the new line lacks its
    # needle "y7", so it is not run there either.
    third = session.generate(append=[Message(name="A", mes="something new")])
    assert tests_run == [key]
    assert any("timed out on this text before, not run again" in w for w in third.warnings)
    session.generate(append=[Message(name="A", mes=f"y7 {RUN}x")])  # a new line to try
    assert tests_run == [key, key]


def test_budget_cut_timeout_is_not_remembered(tests_run: list[str]) -> None:
    """A test cut short by the scan's total (not its own bound) may succeed another time."""
    memo = TimeoutMemo()
    b = book_of(["/(x|xx)+y7/"])
    limits = RegexLimits(per_key=5.0, per_scan=0.01)
    result = check(
        {"b": b},
        [RUN],
        selection=BookSelection(global_names=("b",)),
        settings=Settings(),
        max_context=8192,
        rng=lambda: 0.5,
        regex_limits=limits,
        regex_memo=memo,
    )
    assert any("timed out" in w for w in result.warnings) and len(memo) == 0


def test_memo_is_bounded() -> None:
    memo = TimeoutMemo(size=3)
    for i in range(5):
        memo.add("/k/", f"text {i}")
    assert len(memo) == 3 and ("/k/", "text 4") in memo and ("/k/", "text 0") not in memo


def test_warnings_quote_at_most_200_characters_of_a_key() -> None:
    key = "/(x|xx)+y" + "z" * 5000 + "|q/"
    # The scan's total runs on a clock of its own (each read "costs" 0.3 s: compiling the
    # long key is charged 0.3 s however busy the machine), so the total is never what stops
    # the test; the key itself is exponential on RUN, so it always outlasts per_key.
    limits = RegexLimits(per_key=0.01, per_scan=1.0, clock=StepClock(0.3))
    regex_key.cache_clear()
    result = scan(book_of([key]), [RUN], limits=limits, fast=False)
    (warning,) = result.warnings
    assert warning.startswith("regex key timed out")
    assert len(warning) < KEY_SHOWN + 150 and "more characters" in warning
    assert "z" * KEY_SHOWN not in warning


@pytest.mark.parametrize("branches", [20_000, 60_000, 600_000])
def test_huge_alternations_are_refused_without_compiling(branches: int) -> None:
    key = "/" + "|".join(f"w{i}x" for i in range(branches)) + "/i"
    rk = regex_key(key)
    assert rk is not None and rk.refused is not None
    with pytest.raises(RegexTimeout) as info:
        rk.test("w1x")
    assert info.value.refused and info.value.key == key
    assert len(str(info.value)) < KEY_SHOWN + 150


@pytest.mark.parametrize(
    ("pattern", "flags", "why"),
    [
        ("a" * (MAX_PATTERN + 1), "", "longer than"),
        ("|".join("ab" * 1 for _ in range(MAX_BRANCHES + 1)), "", "alternatives"),
        ("." * 9000, "i", "too large once translated"),  # each . is a spelled-out class
    ],
    ids=["length", "branches", "translation"],
)
def test_compile_limits(pattern: str, flags: str, why: str) -> None:
    rk = regex_key(f"/{pattern}/{flags}")
    assert rk is not None and rk.refused is not None and why in rk.refused


def test_keys_within_the_limits_still_compile() -> None:
    pattern = "|".join(f"{i:x}g" for i in range(MAX_BRANCHES - 1))
    assert len(pattern) <= MAX_PATTERN
    rk = regex_key(f"/{pattern}/")
    assert rk is not None and rk.refused is None and rk.test("say 5dcg now")


@pytest.mark.parametrize("fast", [False, True])
def test_refused_key_is_reported_like_a_timeout(fast: bool) -> None:
    key = "/" + "a" * (MAX_PATTERN + 1) + "/"
    result = scan(book_of([key, "weather"]), ["weather"], limits=RegexLimits(), fast=fast)
    assert [e["uid"] for e in result.activated] == [1]
    (warning,) = result.warnings
    assert warning.startswith("regex key refused: pattern longer than")
    assert "book 'b', entry 0" in warning


def test_lint_names_the_refusal() -> None:
    ((code, message),) = diagnose("/" + "a" * (MAX_PATTERN + 1) + "/", timeout=0.01)
    assert code == "WI011" and "never compiles it" in message


def test_refused_key_is_reported_every_scan_not_remembered() -> None:
    key = "/" + "a" * (MAX_PATTERN + 1) + "/"
    b = book_of([key])
    session = Session(books={"b": b}, global_books=["b"], chat=[Message(name="U", mes="hi")])
    for _ in range(2):
        (warning,) = session.generate("regenerate").warnings
        assert warning.startswith("regex key refused")
    assert len(session.regex_memo) == 0
