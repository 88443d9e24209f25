"""The lexical half of the JavaScript regex translator: escapes and character classes.

``Cursor`` walks the pattern and reads what both atoms and classes share: character escapes
(``\\x``, ``\\u``, ``\\c``, legacy octal, identity escapes), class escapes and ``\\p{…}``, and
the contents of ``[…]``, raising ``JSSyntaxError`` where V8 does. Grammar: ECMAScript with
Annex B when ``u`` is absent, the strict grammar with ``u``.
"""

from __future__ import annotations

import re

from worldinfo._js.regex.chars import CLASS_ESCAPES, NOT_WORD_IU, CharSet, char_set
from worldinfo._js.regex.names import JSSyntaxError
from worldinfo._js.regex.props import property_class

SYNTAX = frozenset("^$\\.*+?()[]{}|")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_CONTROL = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}


class Cursor:
    """A position in a pattern, with the flags and group names that change its grammar."""

    def __init__(self, src: str, *, flags: str, names: dict[str, int]) -> None:
        self.src = src
        self.pos = 0
        self.u = "u" in flags
        self.i = "i" in flags
        self.names = names

    def peek(self, k: int = 0) -> str:
        """The character ``k`` places ahead, or ``""`` past the end."""
        j = self.pos + k
        return self.src[j] if j < len(self.src) else ""

    def class_escape(self, letter: str) -> CharSet:
        if letter == "W" and self.u and self.i:
            return CharSet(ranges=NOT_WORD_IU)
        return CharSet(ranges=CLASS_ESCAPES[letter])

    def octal(self) -> int:
        """Legacy octal escape at ``\\`` (no ``u``): up to three digits, value at most 0o377."""
        d = [self.peek(1)]
        if "0" <= self.peek(2) <= "7":
            d.append(self.peek(2))
            if d[0] <= "3" and "0" <= self.peek(3) <= "7":
                d.append(self.peek(3))
        self.pos += 1 + len(d)
        return int("".join(d), 8)

    def property(self) -> CharSet:
        neg = self.peek(1) == "P"
        end = self.src.find("}", self.pos)
        if self.peek(2) != "{" or end < 0:
            raise JSSyntaxError("Invalid property name")
        prop = property_class(self.src[self.pos + 3 : end])
        if prop is None:
            raise JSSyntaxError("Invalid property name")
        self.pos = end + 1
        return CharSet(props=(f"\\{'P' if neg else 'p'}{{{prop}}}",))

    def char_escape(self, *, in_class: bool) -> int:
        """A CharacterEscape at ``\\`` (not digits); advances past it."""
        c = self.peek(1)
        if c in _CONTROL:
            self.pos += 2
            return _CONTROL[c]
        if c == "c":
            nxt = self.peek(2)
            ok = nxt.isascii() and (
                nxt.isalpha() or (in_class and not self.u and (nxt.isdigit() or nxt == "_"))
            )
            if ok:
                self.pos += 3
                return ord(nxt) % 32
            if self.u:
                raise JSSyntaxError("Invalid unicode escape")
            self.pos += 1
            return ord("\\")
        if c == "x":
            if _HEX2.fullmatch(self.src, self.pos + 2, self.pos + 4):
                self.pos += 4
                return int(self.src[self.pos - 2 : self.pos], 16)
            if self.u:
                raise JSSyntaxError("Invalid escape")
            self.pos += 2
            return ord("x")
        if c == "u":
            return self.unicode_escape()
        if self.u:
            if c in SYNTAX or c == "/" or (in_class and c == "-"):
                self.pos += 2
                return ord(c)
            raise JSSyntaxError("Invalid escape")
        if c == "k" and self.names:
            raise JSSyntaxError("Invalid named reference")
        self.pos += 2
        return ord(c)

    def unicode_escape(self) -> int:
        p = self.pos
        if self.u and self.peek(2) == "{":
            end = self.src.find("}", p + 3)
            digits = self.src[p + 3 : end] if end > 0 else ""
            if not digits or not all(ch in "0123456789abcdefABCDEF" for ch in digits):
                raise JSSyntaxError("Invalid Unicode escape")
            cp = int(digits, 16)
            if cp > 0x10FFFF:
                raise JSSyntaxError("Invalid Unicode escape")
            self.pos = end + 1
            return cp
        if not _HEX4.fullmatch(self.src, p + 2, p + 6):
            if self.u:
                raise JSSyntaxError("Invalid Unicode escape")
            self.pos += 2
            return ord("u")
        cp = int(self.src[p + 2 : p + 6], 16)
        self.pos = p + 6
        pair = (
            self.u
            and 0xD800 <= cp <= 0xDBFF
            and self.src.startswith("\\u", self.pos)
            and _HEX4.fullmatch(self.src, self.pos + 2, self.pos + 6)
        )
        if pair:
            lo = int(self.src[self.pos + 2 : self.pos + 6], 16)
            if 0xDC00 <= lo <= 0xDFFF:
                self.pos += 6
                return 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
        return cp

    def class_contents(self) -> tuple[CharSet, bool]:
        """Parse ``[…]`` at ``[``; return its contents and whether it is negated."""
        self.pos += 1
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        acc = CharSet()
        while True:
            if self.pos >= len(self.src):
                raise JSSyntaxError("Unterminated character class")
            if self.peek() == "]":
                self.pos += 1
                break
            a = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                b = self.class_atom()
                if isinstance(a, int) and isinstance(b, int):
                    if a > b:
                        raise JSSyntaxError("Range out of order in character class")
                    acc = acc.union(CharSet(ranges=((a, b),)))
                    continue
                if self.u:
                    raise JSSyntaxError("Invalid character class")
                acc = acc.union(char_set(ord("-")))
                acc = acc.union(b if isinstance(b, CharSet) else char_set(b))
            acc = acc.union(a if isinstance(a, CharSet) else char_set(a))
        return acc, negate

    def class_atom(self) -> int | CharSet:
        c = self.peek()
        if c != "\\":
            self.pos += 1
            return ord(c)
        e = self.peek(1)
        if e == "":
            raise JSSyntaxError("\\ at end of pattern")
        if e in CLASS_ESCAPES:
            self.pos += 2
            return self.class_escape(e)
        if e in ("p", "P") and self.u:
            return self.property()
        if e == "b":
            self.pos += 2
            return 8
        if e == "-" and self.u:
            self.pos += 2
            return ord("-")
        if e.isascii() and e.isdigit():
            if self.u:
                if e == "0" and not (self.peek(2).isascii() and self.peek(2).isdigit()):
                    self.pos += 2
                    return 0
                raise JSSyntaxError("Invalid class escape")
            if e in "89":
                self.pos += 2
                return ord(e)
            return self.octal()
        if self.u and e == "B":
            raise JSSyntaxError("Invalid escape")
        return self.char_escape(in_class=True)
