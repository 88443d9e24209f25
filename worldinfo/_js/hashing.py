"""SillyTavern's string hash (cyrb53), the golden cases' ``Math.random`` (mulberry32), and the
fallback token estimate."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

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
    units: bytes | memoryview = (
        s.encode("ascii")
        if s.isascii()
        else memoryview(s.encode("utf-16-le", "surrogatepass")).cast("H")
    )
    mask = 0xFFFFFFFF
    # Four code units a turn, masked once: XOR with a unit (below 2**16) and a product's
    # value modulo 2**32 depend only on the low 32 bits of their operands, so the low 32
    # bits come out as with a mask after each unit (inlined imul: this loop runs over
    # every character of every entry hashed one at a time).
    whole = len(units) - len(units) % 4
    quads = iter(units[:whole])
    for a, b, c, d in zip(quads, quads, quads, quads, strict=True):
        h1 = (
            (((((((h1 ^ a) * 2654435761) ^ b) * 2654435761) ^ c) * 2654435761) ^ d) * 2654435761
        ) & mask
        h2 = (
            (((((((h2 ^ a) * 1597334677) ^ b) * 1597334677) ^ c) * 1597334677) ^ d) * 1597334677
        ) & mask
    for c in units[whole:]:
        h1 = ((h1 ^ c) * 2654435761) & mask
        h2 = ((h2 ^ c) * 1597334677) & mask
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return 4294967296 * (2097151 & h2) + (h1 & 0xFFFFFFFF)


_LANE = 8
"""Bytes per lane of ``string_hashes``: a 32-bit state times a 32-bit constant fits in 64 bits."""
_BATCH_BYTES = 1 << 22
"""Scratch memory of one ``string_hashes`` batch (code units x lanes x ``_LANE``)."""
_STEPS = 128
"""Steps of ``_lanes`` whose code units are read into integers together."""
_MAX_LANES = 512
_MIN_LANES = 4
"""Fewer strings than this are hashed one by one: the lanes cost about as many
instructions as two or three strings of ``string_hash`` (callgrind, 825-unit strings: 3.3 /
3.6 / 3.8 / 4.3 M for 2 / 3 / 4 / 6 strings in lanes, 1.6 M a string one by one). Three
strings would gain too, but a scan that hands out three entries (the README's example)
would then import ``struct`` (``tests/test_startup.py``): three strings of at least
``_FEW_UNITS`` code units take the lanes with rows cut by ``re`` instead (``_few_rows``)."""
_FEW_LANES = 3
_FEW_UNITS = 256
"""Three 825-unit strings (callgrind): 4.9 M instructions one by one, 4.1 M in lanes whose
rows ``re`` cuts (+0.2 M the first time: the pattern's compilation), 3.6 M with ``struct``;
two strings: 3.25 M one by one, 3.8 M with ``re``. Short strings keep to ``string_hash``."""


def string_hashes(strings: Sequence[str]) -> list[int]:
    """``string_hash`` of each string, many at a time.

    cyrb53 runs one multiply per code unit; Python spends most of that time interpreting the
    loop. Here lane ``i`` (64 bits) of a big integer holds the state of string ``i``, so one
    big-integer XOR, multiply and mask advance every string of a batch by one code unit
    (products never carry into the next lane). Strings are sorted by length, longest first,
    so the finished ones are the top lanes, set aside as they end. Results equal
    ``string_hash``'s (tests compare them on random text).
    """
    out = [0] * len(strings)
    units = [s.encode("utf-16-le", "surrogatepass") for s in strings]
    order = sorted(range(len(strings)), key=lambda i: -len(units[i]))
    start = 0
    while start < len(order):
        longest = max(len(units[order[start]]) >> 1, 1)
        size = min(_MAX_LANES, len(order) - start, max(1, _BATCH_BYTES // (longest * _LANE)))
        batch = order[start : start + size]
        few = size == _FEW_LANES and len(units[batch[-1]]) >> 1 >= _FEW_UNITS
        if size < _MIN_LANES and not few:
            for i in batch:
                out[i] = string_hash(strings[i])
        else:
            for i, h in zip(batch, _lanes([units[i] for i in batch]), strict=True):
                out[i] = h
        start += size
    return out


def _lanes(units: list[bytes]) -> list[int]:
    """cyrb53 of UTF-16LE byte strings sorted by length, longest first (``string_hashes``)."""
    n = len(units)
    lengths = [len(u) >> 1 for u in units]
    row = n * _LANE
    buf = bytearray(lengths[0] * row)
    for lane, u in enumerate(units):  # column ``lane``: the code units of string ``lane``
        end = lane * _LANE + lengths[lane] * row
        buf[lane * _LANE : end : row] = u[0::2]
        buf[lane * _LANE + 1 : end : row] = u[1::2]
    if n >= _MIN_LANES:
        import struct  # here, not at start-up: only a batch of ``_MIN_LANES`` strings needs it

    view = memoryview(buf)
    h1 = int.from_bytes((0xDEADBEEF).to_bytes(_LANE, "little") * n, "little")
    h2 = int.from_bytes((0x41C6CE57).to_bytes(_LANE, "little") * n, "little")
    mask = int.from_bytes(b"\xff\xff\xff\xff\x00\x00\x00\x00" * n, "little")
    states: list[tuple[int, int]] = [(0, 0)] * n
    active, step, from_bytes = n, 0, int.from_bytes
    while active:
        # Up to where the shortest live lane ends, the same lanes advance: their code
        # units are read as integers a block of steps at a time, outside the loop.
        # (``iter_unpack`` cuts the rows, the live lanes of each, as bytes objects: 3.8 M
        # instructions for four 825-unit strings, 6.0 M slicing the rows one by one.)
        stop, width = lengths[active - 1], active * _LANE
        if n < _MIN_LANES:  # the rows cut by ``re``, not ``struct`` (``_FEW_LANES``)
            for c in [from_bytes(r, "little") for r in _few_rows(buf, row, step, stop)]:
                h1 = ((h1 ^ c) * 2654435761) & mask
                h2 = ((h2 ^ c) * 1597334677) & mask
        else:
            rows = struct.Struct(f"{width}s{row - width}x").iter_unpack
            for lo in range(step * row, stop * row, _STEPS * row):
                hi = min(lo + _STEPS * row, stop * row)
                for c in [from_bytes(r, "little") for (r,) in rows(view[lo:hi])]:
                    h1 = ((h1 ^ c) * 2654435761) & mask
                    h2 = ((h2 ^ c) * 1597334677) & mask
        step, live = stop, active
        while live and lengths[live - 1] <= step:  # lanes live..active-1 have ended
            live -= 1
        bits = _LANE * 8 * live
        _unpack(h1 >> bits, h2 >> bits, states, live, active)
        keep = (1 << bits) - 1
        h1, h2, mask, active = h1 & keep, h2 & keep, mask & keep, live
    return [_final(a, b) for a, b in states]


def _few_rows(buf: bytearray, row: int, step: int, stop: int) -> list[bytes]:
    """Rows ``step`` to ``stop`` of ``buf`` (``row`` bytes a row), cut by ``re.findall``
    (no ``struct``: a few lanes, see ``_FEW_LANES``). Whole rows: the lanes that have ended
    hold zero bytes past their end, so the rows read as the same integers (one pattern)."""
    import re

    return re.compile(b".{%d}" % row, re.DOTALL).findall(buf, step * row, stop * row)


def _unpack(h1: int, h2: int, states: list[tuple[int, int]], lo: int, hi: int) -> None:
    size = (hi - lo) * _LANE
    one = memoryview(h1.to_bytes(size, "little")).cast("Q")
    two = memoryview(h2.to_bytes(size, "little")).cast("Q")
    for k in range(hi - lo):
        states[lo + k] = (one[k], two[k])


def _final(h1: int, h2: int) -> int:
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
