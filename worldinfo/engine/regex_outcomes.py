"""Regex key outcomes remembered across passes and turns, per scan text or per line.

A regex key's test is a pure function of the key and the text (``RegexKey.test``: the
pattern is compiled from the key alone), so a definite outcome can be reused wherever the
same key meets the same text again: the next pass, the next turn, another entry with the
same key. Only definite outcomes are kept; a test that timed out, was refused or was
skipped for want of time is reported and counted each time exactly as without the cache.

The scan text of an entry changes from turn to turn (the depth window slides by one
message, recursion appends), so whole texts rarely repeat between turns; lines do. A
``line_local`` key (``worldinfo._js.regex.literals``: no part of it can match or look at a
line break, no input anchors) matches a text exactly when it matches one of the text's
lines alone, so its outcome is kept per line (and per whole text), and a new turn tests
only its new lines. Other keys are kept per whole text. Before a text (or line) is tested, the key's needles
(``RegexKey.needles``, one of which occurs in every text it matches) are looked for in it:
without one, the outcome is "no match" without running the regex.

Lines are tested in order and the first match decides, as a search over the whole text
would; a test that is undecided on a line (timeout, time budget) makes the key's test
undecided (no match), as the same stall would have stopped the search over the whole text.

Memory is bounded: at most ``max_texts`` texts (lines or whole scan texts) of at most
``max_chars`` characters together, and ``max_outcomes`` outcomes; the oldest texts are
dropped first.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from worldinfo import _js
from worldinfo._js.regex import RegexKey

MAX_TEXTS = 50_000
MAX_CHARS = 8_000_000
MAX_OUTCOMES = 500_000
_SPLITS = 64
"""Most texts whose lines, line starts or lowered form are kept (the texts of a few scans)."""
_BREAK = re.compile("\n")

Run = Callable[[str], "bool | None"]
"""Tests the key on a text within the limits: the outcome, or ``None`` when undecided."""


class RegexOutcomes:
    """Definite regex key outcomes by text (``ScanCache`` keeps one across scans).

    Args:
        max_texts: most texts (lines or whole scan texts) remembered.
        max_chars: most characters of remembered texts, together.
        max_outcomes: most ``(key, text)`` outcomes remembered.
    """

    def __init__(
        self,
        *,
        max_texts: int = MAX_TEXTS,
        max_chars: int = MAX_CHARS,
        max_outcomes: int = MAX_OUTCOMES,
    ) -> None:
        self.max_texts = max_texts
        self.max_chars = max_chars
        self.max_outcomes = max_outcomes
        self._known: dict[str, dict[str, bool]] = {}
        self._lowered: dict[str, str] = {}
        self._splits: dict[str, list[str]] = {}
        self._starts: dict[str, list[int]] = {}
        self._chars = 0
        self._outcomes = 0
        self.runs = 0
        """Regex tests actually run (for tests and benchmarks)."""

    def test(self, key: RegexKey, text: str, run: Run) -> bool:
        """Does ``key`` match ``text``? Remembered outcomes first, then ``run``.

        Args:
            key: the compiled key.
            text: the entry's scan text.
            run: tests the key on a text (the whole text or one of its lines) within the
                regex time limits, reporting what is undecided; ``None`` when undecided.

        Returns:
            The outcome; an undecided test is no match.
        """
        if not key.line_local or key.needles is None or "\n" not in text:
            return self._decide(key, text, run) is True
        known = self._known.get(text)
        if known is not None and key.key in known:
            return known[key.key]
        lines = self._lines(text)
        for i in self._candidates(key, text):
            hit = self._decide(key, lines[i], run)
            if hit is None:
                return False
            if hit:
                break
        else:
            hit = False
        self._remember(key.key, text, hit=hit)  # the whole text too: the same scan text again
        return hit

    def _lines(self, text: str) -> list[str]:
        lines = self._splits.get(text)
        if lines is None:
            if len(self._splits) >= _SPLITS:
                self._splits.clear()
            lines = self._splits[text] = text.split("\n")
        return lines

    def _candidates(self, key: RegexKey, text: str) -> list[int]:
        """Indexes of the lines of ``text`` holding one of the key's needles, ascending
        (``_js.lower`` keeps line breaks, so the lowered text has the same lines)."""
        seen = self._seen(key, text)
        starts = self._starts.get(seen)
        if starts is None:
            if len(self._starts) >= _SPLITS:
                self._starts.clear()
            starts = self._starts[seen] = [0] + [m.end() for m in _BREAK.finditer(seen)]
        found: set[int] = set()
        for needle in key.needles or ():
            at = seen.find(needle)
            while at != -1:
                line = bisect.bisect_right(starts, at) - 1
                found.add(line)
                if line + 1 >= len(starts):
                    break
                at = seen.find(needle, starts[line + 1])
        return sorted(found)

    def _decide(self, key: RegexKey, text: str, run: Run) -> bool | None:
        known = self._known.get(text)
        if known is not None:
            hit = known.get(key.key)
            if hit is not None:
                return hit
        if key.needles is not None and not any(n in self._seen(key, text) for n in key.needles):
            hit = False
        else:
            self.runs += 1
            got = run(text)
            if got is None:
                return None
            hit = got
        self._remember(key.key, text, hit=hit)
        return hit

    def _seen(self, key: RegexKey, text: str) -> str:
        """The text the key's needles are looked for in: its ``_js.lower`` form for ``i``."""
        if not key.lowered:
            return text
        low = self._lowered.get(text)
        if low is None:
            if len(self._lowered) >= _SPLITS:
                self._lowered.clear()
            low = self._lowered[text] = _js.lower(text)
        return low

    def _remember(self, key: str, text: str, *, hit: bool) -> None:
        known = self._known.get(text)
        if known is None:
            if len(text) > self.max_chars:
                return
            known = self._known[text] = {}
            self._chars += len(text)
        if key not in known:
            self._outcomes += 1
        known[key] = hit
        while self._known and (
            len(self._known) > self.max_texts
            or self._chars > self.max_chars
            or self._outcomes > self.max_outcomes
        ):
            oldest = next(iter(self._known))
            self._outcomes -= len(self._known.pop(oldest))
            self._chars -= len(oldest)

    def forget(self) -> None:
        """Drop every remembered outcome (benchmarks measure unseen text this way)."""
        self._known.clear()
        self._lowered.clear()
        self._splits.clear()
        self._starts.clear()
        self._chars = 0
        self._outcomes = 0

    def __len__(self) -> int:
        return self._outcomes
