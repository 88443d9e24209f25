"""The ``seedrandom`` package (3.0.5, ARC4) seeded with a number: SillyTavern's ``{{pick}}``."""

from __future__ import annotations

from worldinfo._js.values import format_number


def seedrandom_first(seed: float | str) -> float:
    """Return the first output of ``seedrandom(seed)`` (spec M8.4).

    Args:
        seed: a number (its decimal ``String()`` plus ``"\\0"`` is the ARC4 key, as
            seedrandom's ``flatten`` makes it) or a string shorter than 256 characters
            (the key as is).

    Returns:
        A float in ``[0, 1)``.
    """
    text = seed if isinstance(seed, str) else format_number(seed) + "\0"
    key = [ord(c) & 255 for c in text] or [0]
    width = len(key)
    s = list(range(256))
    j = 0
    for i in range(256):  # key schedule
        j = (j + key[i % width] + s[i]) & 255
        s[i], s[j] = s[j], s[i]
    i = j = 0
    for _ in range(256):  # seedrandom discards the first 256 bytes
        i = (i + 1) & 255
        t = s[i]
        j = (j + t) & 255
        s[i] = s[j]
        s[j] = t

    def byte() -> int:
        nonlocal i, j
        i = (i + 1) & 255
        t = s[i]
        j = (j + t) & 255
        s[i] = s[j]
        s[j] = t
        return s[(s[i] + s[j]) & 255]

    n = 0
    for _ in range(6):
        n = n * 256 + byte()
    d = 2**48
    x = 0
    while n < 2**52:
        n = (n + x) * 256
        d *= 256
        x = byte()
    while n >= 2**53:
        n //= 2
        d //= 2
        x >>= 1
    return float(n + x) / d  # JavaScript adds in floating point, then scales by 2**-k
