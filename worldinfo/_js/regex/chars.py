"""Character sets of the JavaScript regex translator, emitted as explicit ``regex`` classes.

A set is a tuple of inclusive code point ranges plus ``regex`` property items (``\\p{…}``,
which only occur with the ``u`` flag). Nothing here relies on ``regex``'s own ``\\w``, ``\\s``,
``.`` or ``IGNORECASE`` for the non-``u`` string model.
"""

from __future__ import annotations

from worldinfo._js import JS_WHITESPACE
from worldinfo._record import record

Ranges = tuple[tuple[int, int], ...]
MAX_CP = 0x10FFFF
LINE_TERMINATORS = "\n\r\u2028\u2029"


def normalize(ranges: list[tuple[int, int]] | Ranges) -> Ranges:
    """Sort and merge overlapping or adjacent ranges."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def complement(ranges: Ranges) -> Ranges:
    """Every code point not in ``ranges`` (which must be normalized)."""
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CP:
        out.append((nxt, MAX_CP))
    return tuple(out)


def _of(chars: str) -> Ranges:
    return normalize([(ord(c), ord(c)) for c in chars])


DIGIT: Ranges = ((0x30, 0x39),)
WORD: Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
SPACE: Ranges = _of(JS_WHITESPACE)
LINE_TERM: Ranges = _of(LINE_TERMINATORS)
ANY: Ranges = ((0, MAX_CP),)

# Class escapes: letter -> ranges (upper-case letters are complements).
CLASS_ESCAPES: dict[str, Ranges] = {
    "d": DIGIT,
    "D": complement(DIGIT),
    "w": WORD,
    "W": complement(WORD),
    "s": SPACE,
    "S": complement(SPACE),
}

# With i and u, ſ (U+017F) and K (U+212A) fold into the word set (\w, \W, \b).
WORD_IU: Ranges = normalize(WORD + ((0x17F, 0x17F), (0x212A, 0x212A)))
NOT_WORD_IU: Ranges = complement(WORD_IU)


def escape_cp(cp: int) -> str:
    """A ``regex``-syntax escape for one code point, usable inside and outside classes."""
    if cp < 0x80 and chr(cp).isalnum():
        return chr(cp)
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


@record
class CharSet:
    """A set of code points (or UTF-16 units) plus ``regex`` property items."""

    ranges: Ranges = ()
    props: tuple[str, ...] = ()

    def union(self, other: CharSet) -> CharSet:
        """Return the union of two sets."""
        return CharSet(ranges=normalize(self.ranges + other.ranges), props=self.props + other.props)

    def emit(self, *, negate: bool = False) -> str:
        """``regex`` syntax for the set (or its complement): a class, or a never-match."""
        body = "".join(
            escape_cp(lo) if lo == hi else f"{escape_cp(lo)}-{escape_cp(hi)}"
            for lo, hi in self.ranges
        ) + "".join(self.props)
        if not body:
            return _EVERYTHING if negate else "(?!)"
        if self.ranges == ANY and not negate:
            return _EVERYTHING
        return f"[^{body}]" if negate else f"[{body}]"


_EVERYTHING = "[\\s\\S]"
"""Any code point; ``regex`` runs this spelling several times faster than the full range."""


def char_set(cp: int) -> CharSet:
    """The set holding one code point."""
    return CharSet(ranges=((cp, cp),))
