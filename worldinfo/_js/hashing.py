"""SillyTavern's string hash (cyrb53), the golden cases' ``Math.random`` (mulberry32), and the
fallback token estimate."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from worldinfo._js.strings import utf16_len
from worldinfo._js.values import JSONValue


def _imul(a: int, b: int) -> int:
    return (a * b) & 0xFFFFFFFF


def string_hash(s: JSONValue, seed: int = 0) -> int:
    """SillyTavern's ``getStringHash`` (cyrb53 over UTF-16 code units); non-strings hash to 0."""
    if not isinstance(s, str):
        return 0
    h1 = (0xDEADBEEF ^ seed) & 0xFFFFFFFF
    h2 = (0x41C6CE57 ^ seed) & 0xFFFFFFFF
    units: Iterable[int] = (
        s.encode("ascii")
        if s.isascii()
        else memoryview(s.encode("utf-16-le", "surrogatepass")).cast("H")
    )
    mask = 0xFFFFFFFF
    for c in units:  # inlined imul: this loop runs over every character of every entry
        h1 = ((h1 ^ c) * 2654435761) & mask
        h2 = ((h2 ^ c) * 1597334677) & mask
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return 4294967296 * (2097151 & h2) + (h1 & 0xFFFFFFFF)


def mulberry32(seed: int) -> Callable[[], float]:
    """Return the mulberry32 generator the golden cases substitute for ``Math.random``."""
    state = [seed & 0xFFFFFFFF]

    def rng() -> float:
        a = (state[0] + 0x6D2B79F5) & 0xFFFFFFFF
        state[0] = a
        t = _imul(a ^ (a >> 15), a | 1)
        t = t ^ ((t + _imul(t ^ (t >> 7), t | 61)) & 0xFFFFFFFF)
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    return rng


def st_token_estimate(text: JSONValue) -> int:
    """SillyTavern's fallback token count: ``ceil(utf16_len / 3.35)``; 0 for non-strings."""
    if not isinstance(text, str) or not text:
        return 0
    return st_tokens_for_length(utf16_len(text))


def st_tokens_for_length(units: int) -> int:
    """``st_token_estimate`` of a non-empty string of ``units`` UTF-16 code units (the
    estimate depends on the length alone, so a growing text can be counted piece by piece)."""
    return math.ceil(units / 3.35)
