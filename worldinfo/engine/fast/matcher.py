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
not; substring, whole-word), run over the line (lower-cased for the lower-cased needles).
The automaton reports every occurrence, overlapping ones included, so a whole-word needle
is present when any of its occurrences passes the ASCII word-character test around it that
``whole_word_in`` makes (R24), exactly as ``match_key`` decides. A whole-word needle made
only of ASCII word characters (most keys: names, words) needs no test per occurrence: it is
looked up between spaces in the line with every other character turned into a space.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from operator import itemgetter

import ahocorasick  # type: ignore[import-not-found,unused-ignore]

from worldinfo import _js
from worldinfo._record import record

ALWAYS = 0
"""Id of the empty needle (a whitespace-only key): it matches every scan text (R25)."""
LINE_CACHE_LIMIT = 200_000


@record(kw_only=False)
class Needle:
    """A plain key as ``match_key`` tests it: the text, case folding and word mode."""

    text: str
    lowered: bool
    whole_word: bool


_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
"""``\\w`` without ``u``: the characters that are not whole-word boundaries (R24)."""

_NOT_WORD = re.compile("[^A-Za-z0-9_]")
_SECOND = itemgetter(1)
SUBSTRING, TESTED, WORDS = 0, 1, 2
"""How an automaton's needles are found: as substrings; whole words, each occurrence tested
for word characters around it; whole words made only of word characters, found between
spaces in the line with every other character turned into a space (``_words_only``)."""
_BOUNDARY = bytes(c if chr(c) in _WORD_CHARS else 0x20 for c in range(256))


def _words_only(text: str) -> str:
    """``text`` with each character that is not an ASCII word character (R24) replaced by a
    space, and a space before and after: a needle of word characters occurs in ``text`` as a
    whole word exactly where it occurs here between two spaces. Same length plus two (a
    non-ASCII character is encoded as one ``?``, then turned into a space)."""
    return " " + text.encode("ascii", "replace").translate(_BOUNDARY).decode("ascii") + " "


def _automaton(texts: dict[str, int], *, kind: int) -> object:
    """An automaton reporting each text's id (and its length, for ``TESTED`` texts)."""
    auto = ahocorasick.Automaton()
    ids: Iterable[object] = texts.values()
    if kind == TESTED:
        ids = zip(ids, map(len, texts), strict=True)
    words: Iterable[str] = map(" {} ".format, texts) if kind == WORDS else texts
    list(map(auto.add_word, words, ids))
    auto.make_automaton()
    return auto


def _tested(auto: object, line: str, out: set[int]) -> None:
    """Add the ids of the whole-word needles of ``auto`` with an occurrence in ``line``
    that no ASCII word character touches on either side (R24)."""
    last = len(line) - 1
    for end, (nid, size) in auto.iter(line):  # type: ignore[attr-defined]
        start = end - size + 1
        if (start == 0 or line[start - 1] not in _WORD_CHARS) and (
            end == last or line[end + 1] not in _WORD_CHARS
        ):
            out.add(nid)


def _matches(automata: list[tuple[bool, int, object]], line: str) -> set[int]:
    """Ids of the needles of every automaton present in ``line``."""
    out: set[int] = set()
    texts: dict[tuple[bool, bool], str] = {}
    for lowered, kind, auto in automata:
        words = kind == WORDS
        text = texts.get((lowered, words))
        if text is None:
            text = _js.lower(line) if lowered else line
            text = texts[lowered, words] = _words_only(text) if words else text
        if kind == TESTED:
            _tested(auto, text, out)
        else:
            out.update(map(_SECOND, auto.iter(text)))  # type: ignore[attr-defined]
    return out


class KeyIndex:
    """Every fast-matchable needle of a plan, and a per-line cache of the ids present."""

    def __init__(self) -> None:
        self._texts: tuple[tuple[dict[str, int], dict[str, int]], ...] = (({}, {}), ({}, {}))
        """Text -> id, by ``[lowered][whole word]``."""
        self._automata: list[tuple[bool, int, object]] | None = None
        self._lines: dict[str, frozenset[int]] = {}
        self.size = 1

    def add(self, needle: Needle) -> int:
        """The id of ``needle`` (registered on first use); ``ALWAYS`` for the empty text."""
        return self.add_text(needle.text, lowered=needle.lowered, whole_word=needle.whole_word)

    def add_texts(
        self, texts: list[str], *, lowered: bool, whole_words: list[bool] | None
    ) -> list[int]:
        """``add_text`` of each text (``whole_words``: each one's word mode, ``None``: all
        substrings), in bulk."""
        if whole_words is not None:
            return [
                self.add_text(t, lowered=lowered, whole_word=w)
                for t, w in zip(texts, whole_words, strict=True)
            ]
        table = self._texts[lowered][False]
        before = self.size
        unique = dict.fromkeys(texts)  # first seen first
        unique.pop("", None)
        fresh = [t for t in unique if t not in table] if table else list(unique)
        table.update(zip(fresh, range(before, before + len(fresh)), strict=True))
        self.size += len(fresh)
        out: list[int] = list(map(table.get, texts))  # type: ignore[arg-type]
        if "" in texts:  # the empty text is not in the table: it matches every text
            out = [ALWAYS if not t else nid for t, nid in zip(texts, out, strict=True)]
        if self.size != before and self._automata is not None:
            self._automata = None
            self._lines.clear()
        return out

    def add_text(self, text: str, *, lowered: bool, whole_word: bool) -> int:
        """``add(Needle(text=text, lowered=lowered, whole_word=whole_word))``."""
        if not text:
            return ALWAYS
        texts = self._texts[lowered][whole_word]
        nid = texts.get(text)
        if nid is None:
            nid = texts[text] = self.size
            self.size += 1
            if self._automata is not None:
                self._automata = None
                self._lines.clear()
        return nid

    def needles(self) -> dict[int, Needle]:
        """Every needle by id (``ALWAYS``: the empty text)."""
        out = {ALWAYS: Needle(text="", lowered=False, whole_word=False)}
        for lowered, pair in zip((False, True), self._texts, strict=True):
            for whole, texts in zip((False, True), pair, strict=True):
                for text, nid in texts.items():
                    out[nid] = Needle(text=text, lowered=lowered, whole_word=whole)
        return out

    def freeze(self) -> None:
        """No more needles for now: build the automata (a later ``add`` rebuilds them)."""
        automata = []
        for lowered, (substrings, whole) in zip((False, True), self._texts, strict=True):
            words = whole  # the common case: every whole-word needle all word characters
            if _NOT_WORD.search("".join(whole)):
                words = {t: nid for t, nid in whole.items() if _WORD_CHARS.issuperset(t)}
            tested = {text: nid for text, nid in whole.items() if text not in words}
            for kind, texts in ((SUBSTRING, substrings), (TESTED, tested), (WORDS, words)):
                if texts:
                    automata.append((lowered, kind, _automaton(texts, kind=kind)))
        self._automata = automata

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
        if len(automata) == 1 and automata[0][1] != TESTED:  # the common case: one automaton
            lowered, kind, auto = automata[0]
            text = _js.lower(line) if lowered else line
            text = _words_only(text) if kind == WORDS else text
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
