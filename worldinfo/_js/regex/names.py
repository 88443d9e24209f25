"""Capture groups of a JavaScript pattern: the pre-scan (count and names) and group names."""

from __future__ import annotations

import re

_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_BRACED = re.compile(r"\{([0-9A-Fa-f]+)\}")


class JSSyntaxError(ValueError):
    """The pattern is one V8 refuses (``new RegExp`` throws a SyntaxError)."""


def prescan(src: str, *, unicode: bool) -> tuple[int, dict[str, int]]:
    """Count the capturing groups of ``src`` and map group names to their numbers.

    Args:
        src: the pattern (UTF-16 units without ``u``, code points with it).
        unicode: whether the ``u`` flag is set.

    Returns:
        The number of capturing groups and the name-to-number map.

    Raises:
        JSSyntaxError: for an invalid or duplicate group name.
    """
    count = 0
    names: dict[str, int] = {}
    i, n, in_class = 0, len(src), False
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            i += 1
            if src.startswith("^", i):
                i += 1
            if not src.startswith("]", i):
                in_class = True
                continue
        elif c == "(":
            if not src.startswith("(?", i):
                count += 1
            elif src.startswith("(?<", i) and src[i + 3 : i + 4] not in ("=", "!"):
                count += 1
                name, _ = read_name(src, i + 3, unicode=unicode)
                if name in names:
                    raise JSSyntaxError("Duplicate capture group name")
                names[name] = count
        i += 1
    return count, names


def _is_start(ch: str) -> bool:
    return ch in ("$", "_") or ch.isidentifier()


def _is_part(ch: str) -> bool:
    return ch in ("$", "\u200c", "\u200d") or ("_" + ch).isidentifier()


def read_name(src: str, pos: int, *, unicode: bool) -> tuple[str, int]:  # noqa: ARG001 (both modes read names alike)
    """Read a group name starting at ``pos`` up to and including the closing ``>``.

    Args:
        src: the pattern.
        pos: index of the first character of the name.
        unicode: whether the ``u`` flag is set (without it a name may still hold a
            surrogate pair, which is read as one character).

    Returns:
        The name and the index after ``>``.

    Raises:
        JSSyntaxError: "Invalid capture group name".
    """
    chars: list[str] = []
    i = pos
    while i < len(src) and src[i] != ">":
        c = src[i]
        if c == "\\":
            if not src.startswith("\\u", i):
                raise JSSyntaxError("Invalid capture group name")
            m = _BRACED.match(src, i + 2)
            if m is not None:
                cp = int(m.group(1), 16)
                i = m.end()
            elif _HEX4.fullmatch(src, i + 2, i + 6):
                cp = int(src[i + 2 : i + 6], 16)
                i += 6
                if 0xD800 <= cp <= 0xDBFF and _HEX4.fullmatch(src, i + 2, i + 6):
                    lo = int(src[i + 2 : i + 6], 16)
                    if src.startswith("\\u", i) and 0xDC00 <= lo <= 0xDFFF:
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                        i += 6
            else:
                raise JSSyntaxError("Invalid capture group name")
            if cp > 0x10FFFF:
                raise JSSyntaxError("Invalid capture group name")
            chars.append(chr(cp))
            continue
        o = ord(c)
        if 0xD800 <= o <= 0xDBFF and i + 1 < len(src) and 0xDC00 <= ord(src[i + 1]) <= 0xDFFF:
            chars.append(chr(0x10000 + ((o - 0xD800) << 10) + (ord(src[i + 1]) - 0xDC00)))
            i += 2
            continue
        chars.append(c)
        i += 1
    if i >= len(src) or not chars:
        raise JSSyntaxError("Invalid capture group name")
    if not _is_start(chars[0]) or not all(_is_part(ch) for ch in chars[1:]):
        raise JSSyntaxError("Invalid capture group name")
    return "".join(chars), i + 1
