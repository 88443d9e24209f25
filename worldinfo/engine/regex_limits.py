"""Time bounds on regex keys: per test, per scan, and memory of what timed out.

A regex key test is bounded by ``RegexLimits.per_key`` (the ``regex`` module's timeout). A
scan also has a total: once its regex tests have used ``per_scan`` seconds (measured with
the injected ``clock``), the remaining regex key tests of that scan are skipped (counted
as no match, one summary warning). A key that ran out of its full per-key time on a text
is remembered in a ``TimeoutMemo`` (``Session`` keeps one) and not run again on that same
text in later scans: it would time out again.

Compiling counts too: ``RegexClock`` (one per scan) charges every ``regex_key`` call to the
scan's total, whether the key index compiles it while preparing a book or the scan does;
once the total is spent, regex-shaped keys are neither compiled nor tested in that scan.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from worldinfo._js.regex import DEFAULT_TIMEOUT, RegexKey, prepare_tables, regex_key, split_key
from worldinfo._record import field, record

DEFAULT_SCAN_BUDGET = 1.0
"""Seconds of regex matching allowed per scan, all keys and passes together."""


@record
class RegexLimits:
    """Time allowed to regex keys.

    Args:
        per_key: seconds one key test may take (``regex``'s own timeout).
        per_scan: seconds all regex key tests of one scan may take together.
        clock: the clock the per-scan total is measured with (seconds, monotonic).
    """

    per_key: float = DEFAULT_TIMEOUT
    per_scan: float = DEFAULT_SCAN_BUDGET
    clock: Callable[[], float] = field(default=time.perf_counter, compare=False)


DEFAULT_REGEX_LIMITS = RegexLimits()


class TimeoutMemo:
    """Which regex keys timed out on which scan texts (bounded; oldest dropped first).

    Args:
        size: the most ``(key, text)`` pairs remembered.
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._seen: dict[tuple[str, int, int], None] = {}

    @staticmethod
    def _slot(key: str, text: str) -> tuple[str, int, int]:
        return key, len(text), hash(text)

    def __contains__(self, item: tuple[str, str]) -> bool:
        return self._slot(*item) in self._seen

    def add(self, key: str, text: str) -> None:
        """Remember that ``key`` timed out on ``text``."""
        slot = self._slot(key, text)
        self._seen.pop(slot, None)
        self._seen[slot] = None
        while len(self._seen) > self.size:
            del self._seen[next(iter(self._seen))]

    def __len__(self) -> int:
        return len(self._seen)


@record(frozen=False, kw_only=False)
class RegexClock:
    """One scan's regex time: what compiling and matching regex keys have used so far.

    Args:
        limits: the time limits.
    """

    limits: RegexLimits = DEFAULT_REGEX_LIMITS
    spent: float = 0.0
    skipped: int = 0
    """Regex-shaped key tests skipped because the total was spent."""

    def remaining(self) -> float:
        """Seconds left of the scan's total."""
        return self.limits.per_scan - self.spent

    def over(self, key: str) -> bool:
        """Is ``key`` (trimmed) regex-shaped while the total is spent? (Then it is skipped.)"""
        return self.spent >= self.limits.per_scan and split_key(key) is not None

    def compile(self, key: str) -> RegexKey | None:
        """``regex_key(key)``, its time (a cache hit costs microseconds) charged; the
        process's one-time case tables are built first, uncharged."""
        prepare_tables(key)
        clock = self.limits.clock
        start = clock()
        try:
            return regex_key(key)
        finally:
            self.spent += clock() - start
