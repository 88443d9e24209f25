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
id; ``found(line)`` returns the ids present in ``line``. The needles are found by
Aho-Corasick automata (``pyahocorasick``, in C), one per kind of needle (lower-cased or
not, whole-word or not), run over the line (lower-cased for the lower-cased needles). The
automaton reports every occurrence, overlapping ones included, so a whole-word needle is
present when any of its occurrences passes the ASCII word-character test around it that
``whole_word_in`` makes (R24), exactly as ``match_key`` decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from operator import itemgetter

import ahocorasick  # type: ignore[import-not-found,unused-ignore]

from worldinfo import _js

ALWAYS = 0
"""Id of the empty needle (a whitespace-only key): it matches every scan text (R25)."""
LINE_CACHE_LIMIT = 200_000


@dataclass(frozen=True, slots=True)
class Needle:
    """A plain key as ``match_key`` tests it: the text, case folding and word mode."""

    text: str
    lowered: bool
    whole_word: bool


_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
"""``\\w`` without ``u``: the characters that are not whole-word boundaries (R24)."""

_SECOND = itemgetter(1)
_KINDS = ((False, False), (False, True), (True, False), (True, True))
"""``(lowered, whole word)``: the kinds of needle, one automaton each."""


def _automaton(texts: dict[str, int], *, whole: bool) -> object:
    """An automaton reporting each text's id, and for whole-word texts also its length."""
    auto = ahocorasick.Automaton()
    for text, nid in texts.items():
        auto.add_word(text, (nid, len(text)) if whole else nid)
    auto.make_automaton()
    return auto


def _whole_words(auto: object, line: str, out: set[int]) -> None:
    """Add the ids of the whole-word needles of ``auto`` with an occurrence in ``line``
    that no ASCII word character touches on either side (R24)."""
    last = len(line) - 1
    for end, (nid, size) in auto.iter(line):  # type: ignore[attr-defined]
        start = end - size + 1
        if (start == 0 or line[start - 1] not in _WORD_CHARS) and (
            end == last or line[end + 1] not in _WORD_CHARS
        ):
            out.add(nid)


def _matches(automata: list[tuple[bool, bool, object]], line: str) -> set[int]:
    """Ids of the needles of every automaton present in ``line``."""
    out: set[int] = set()
    lower: str | None = None
    for lowered, whole, auto in automata:
        text = line
        if lowered:
            text = lower = _js.lower(line) if lower is None else lower
        if whole:
            _whole_words(auto, text, out)
        else:
            out.update(map(_SECOND, auto.iter(text)))  # type: ignore[attr-defined]
    return out


class KeyIndex:
    """Every fast-matchable needle of a plan, and a per-line cache of the ids present."""

    def __init__(self) -> None:
        self._texts: tuple[tuple[dict[str, int], dict[str, int]], ...] = (({}, {}), ({}, {}))
        """Text -> id, by ``[lowered][whole word]``."""
        self._automata: list[tuple[bool, bool, object]] | None = None
        self._lines: dict[str, frozenset[int]] = {}
        self.size = 1

    def add(self, needle: Needle) -> int:
        """The id of ``needle`` (registered on first use); ``ALWAYS`` for the empty text."""
        text = needle.text
        if not text:
            return ALWAYS
        texts = self._texts[needle.lowered][needle.whole_word]
        nid = texts.get(text)
        if nid is None:
            nid = texts[text] = self.size
            self.size += 1
            if self._automata is not None:
                self._automata = None
                self._lines.clear()
        return nid

    def freeze(self) -> None:
        """No more needles for now: build the automata (a later ``add`` rebuilds them)."""
        self._automata = [
            (lowered, whole, _automaton(texts, whole=whole))
            for lowered, whole in _KINDS
            if (texts := self._texts[lowered][whole])
        ]

    def found(self, line: str) -> frozenset[int]:
        """Ids of the needles present in ``line`` (a text without ``"\\n"``)."""
        hit = self._lines.get(line)
        return self._match(line) if hit is None else hit

    def _match(self, line: str) -> frozenset[int]:
        """``found`` for a line not in the cache: run the automata, cache the result."""
        automata = self._automata
        if automata is None:
            self.freeze()
            automata = self._automata
            assert automata is not None
        if len(automata) == 1 and not automata[0][1]:  # the common case: one kind, no rule
            lowered, _, auto = automata[0]
            text = _js.lower(line) if lowered else line
            result = frozenset(map(_SECOND, auto.iter(text)))  # type: ignore[attr-defined]
        else:
            result = frozenset(_matches(automata, line))
        lines = self._lines
        if len(lines) >= LINE_CACHE_LIMIT:
            lines.clear()
        lines[line] = result
        return result

    def found_text(self, text: str) -> set[int]:
        """Ids present anywhere in ``text`` (lines split at ``"\\n"``)."""
        out: set[int] = set()
        self._collect(text, out)
        return out

    def found_all(self, texts: Iterable[str]) -> set[int]:
        """Ids present in any of ``texts``."""
        out: set[int] = set()
        for text in texts:
            self._collect(text, out)
        return out

    def _collect(self, text: str, out: set[int]) -> None:
        """Add the ids present in the lines of ``text`` to ``out``."""
        lines = self._lines
        for line in text.split("\n"):
            hit = lines.get(line)
            if hit is None:
                hit = self._match(line)
            if hit:
                out |= hit

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
