"""Multi-key matching: which plain keys occur in a piece of scan text, found all at once.

The scan text of an entry (R18) is its pieces (messages, card fields, injected prompts,
recursion texts) joined with ``"\\n\\x01"``. A plain key that contains neither ``"\\n"`` nor
``"\\x01"`` occurs in the joined text exactly when it occurs in one of its lines (the text
split at ``"\\n"``): the joiners are ASCII non-word characters, so a whole-word boundary at a
line edge is a boundary in the joined text too, and lower-casing (``_js.lower``, with its
final-sigma context) never crosses a line break. So a key's presence is decided line by
line, and a line's set of present keys is computed once and cached.

``KeyIndex`` holds every such key (``Needle``: the trimmed key, lower-cased when the entry
matches case-insensitively, and whether the whole-word rule applies) under a small integer
id; ``found(line)`` returns the ids present in ``line``. Candidates are found through
fixed-length prefixes of the keys (``regex`` named lists, in C) and then confirmed at each
position: the exact text, and for whole-word keys the ASCII word-character test around it
that ``whole_word_in`` makes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import regex  # type: ignore[import-untyped,unused-ignore]

from worldinfo import _js

ALWAYS = 0
"""Id of the empty needle (a whitespace-only key): it matches every scan text (R25)."""
PREFIX = 4
LINE_CACHE_LIMIT = 200_000


@dataclass(frozen=True, slots=True)
class Needle:
    """A plain key as ``match_key`` tests it: the text, case folding and word mode."""

    text: str
    lowered: bool
    whole_word: bool


_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
"""``\\w`` without ``u``: the characters that are not whole-word boundaries (R24)."""

Bucket = dict[int, dict[str, list[tuple[int, bool]]]]
"""Needles sharing a prefix: length -> text -> ``(id, whole word)``."""


@dataclass(slots=True)
class _Finder:
    """Finds needles in a line (already lower-cased for the case-insensitive needles).

    Needles are bucketed by their first ``min(len, PREFIX)`` characters. One ``regex``
    named-list search per prefix length (a named list matches a set of equal-length
    strings, in C) yields every position where a prefix occurs; there each needle length
    of the bucket is one slice and one dict lookup, then the whole-word test (R24: the
    characters around the occurrence are not ASCII word characters).
    """

    buckets: dict[int, dict[str, Bucket]] = field(default_factory=dict)
    patterns: dict[int, Any] | None = None

    def add(self, text: str, nid: int, *, whole: bool) -> None:
        size = min(len(text), PREFIX)
        bucket = self.buckets.setdefault(size, {}).setdefault(text[:size], {})
        bucket.setdefault(len(text), {}).setdefault(text, []).append((nid, whole))
        self.patterns = None

    def find(self, line: str, out: set[int]) -> None:
        patterns = self.patterns
        if patterns is None:
            patterns = self.patterns = {
                size: regex.compile(r"\L<g>", g=list(table)) for size, table in self.buckets.items()
            }
        n = len(line)
        for size, pattern in patterns.items():
            if n < size:
                continue
            table = self.buckets[size]
            for m in pattern.finditer(line, overlapped=True):
                i = m.start()
                for length, texts in table[m.group()].items():
                    end = i + length
                    if end > n:
                        continue
                    found = texts.get(line[i:end])
                    if found is None:
                        continue
                    for nid, whole in found:
                        if not whole or (
                            (i == 0 or line[i - 1] not in _WORD_CHARS)
                            and (end == n or line[end] not in _WORD_CHARS)
                        ):
                            out.add(nid)


class KeyIndex:
    """Every fast-matchable needle of a plan, and a per-line cache of the ids present."""

    def __init__(self) -> None:
        self._ids: dict[Needle, int] = {}
        self._finders: dict[bool, _Finder] = {}
        self._lines: dict[str, frozenset[int]] = {}
        self.size = 1

    def add(self, needle: Needle) -> int:
        """The id of ``needle`` (registered on first use); ``ALWAYS`` for the empty text."""
        if not needle.text:
            return ALWAYS
        nid = self._ids.get(needle)
        if nid is None:
            nid = self._ids[needle] = self.size
            self.size += 1
            finder = self._finders.get(needle.lowered)
            if finder is None:
                finder = self._finders[needle.lowered] = _Finder()
            finder.add(needle.text, nid, whole=needle.whole_word)
        return nid

    def freeze(self) -> None:
        """No more needles: drop the registration table (the finders keep what they need)."""
        self._ids.clear()

    def found(self, line: str) -> frozenset[int]:
        """Ids of the needles present in ``line`` (a text without ``"\\n"``)."""
        hit = self._lines.get(line)
        if hit is not None:
            return hit
        out: set[int] = set()
        for lower, finder in self._finders.items():
            finder.find(_js.lower(line) if lower else line, out)
        result = frozenset(out)
        if len(self._lines) >= LINE_CACHE_LIMIT:
            self._lines.clear()
        self._lines[line] = result
        return result

    def found_text(self, text: str) -> set[int]:
        """Ids present anywhere in ``text`` (lines split at ``"\\n"``)."""
        out: set[int] = set()
        for line in text.split("\n"):
            out |= self.found(line)
        return out

    def found_all(self, texts: Iterable[str]) -> set[int]:
        """Ids present in any of ``texts``."""
        out: set[int] = set()
        for text in texts:
            out |= self.found_text(text)
        return out

    def forget_lines(self) -> None:
        """Drop the per-line cache (benchmarks measure scans on unseen text this way)."""
        self._lines.clear()


_SIMPLE_ESCAPES = frozenset("bBwWdDsStnrvf")
_LITERAL = frozenset(chr(c) for c in range(0x20, 0x7F)) - frozenset("\\[].^$*+?(){}|/")


def required_literal(source: str, flags: str) -> tuple[str, bool] | None:
    """A text every match of ``new RegExp(source, flags)`` contains, for a prefilter.

    Only simple patterns are analysed: no groups, alternation or counted repeats, and only
    single-character escapes. The longest run of printable ASCII literal characters that
    no ``?``/``*`` makes optional is returned, with whether to compare it lower-cased
    (``i`` flag: ASCII letters then match their other case only; with ``u`` too, simple
    case folding could match non-ASCII characters, so such patterns are not analysed).

    Returns:
        ``(text, lowered)``, or ``None`` when no such text can be given.
    """
    if ("i" in flags and "u" in flags) or any(c in source for c in "(|{"):
        return None
    runs: list[str] = []
    current = ""
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        atom: str | None
        if c == "\\":
            if i + 1 >= n:
                return None
            d = source[i + 1]
            if d.isascii() and d.isalnum():
                if d not in _SIMPLE_ESCAPES:
                    return None
                atom = None
            else:
                atom = d if d in _LITERAL or d in "\\[].^$*+?(){}|/" else None
            i += 2
        elif c == "[":
            j = i + 1
            while j < n and source[j] != "]":
                j += 2 if source[j] == "\\" else 1
            if j >= n:
                return None
            atom, i = None, j + 1
        elif c in "*+?":
            return None
        else:
            atom = c if c in _LITERAL or c in "]}" else None
            i += 1
        quantifier = source[i] if i < n and source[i] in "*+?" else ""
        if quantifier:
            i += 2 if i + 1 < n and source[i + 1] == "?" else 1
        if atom is None or quantifier in ("*", "?"):
            runs.append(current)
            current = ""
        elif quantifier == "+":
            runs.append(current + atom)
            current = atom
        else:
            current += atom
    runs.append(current)
    best = max(runs, key=len)
    if not best:
        return None
    lowered = "i" in flags
    return (best.lower() if lowered else best), lowered
