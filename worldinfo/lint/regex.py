"""Lint checks for regex keys (R22-R23, R18): refused, catastrophic, never or always matching.

SillyTavern scans ``"\\x01" + "\\n\\x01".join(messages)``: every message starts with U+0001, so
``^`` (without ``m``) and the sticky flag ``y`` can only match at that character.
"""

from __future__ import annotations

import re

from worldinfo._js.regex import RegexKey, RegexTimeout, regex_key, split_key

Diagnosis = tuple[str, str]

_LOOKS_LIKE = re.compile(r"/.+/[A-Za-z]*\Z", re.DOTALL)
_PLAIN = re.compile(r"[A-Za-z0-9 _\-'\"!,;:#%&=<>@~`]")
_ZERO_QUANT = re.compile(r"[?*]|\{0[,}]")
_REPS = {"w": "a", "d": "1", "s": " ", "S": "a", "W": "!", "D": "a"}
_PROBES = ("\x01", "\x01qzxj vkw 93.", "\x01\u03a9\u03bc\n\x01B")


def diagnose(key: str, *, timeout: float) -> list[Diagnosis]:
    """What is wrong with a trimmed key as a regex key (``[]`` for plain keys that are fine).

    Args:
        key: the key after JavaScript ``trim()``.
        timeout: seconds per adversarial test.

    Returns:
        ``(code, message)`` pairs.
    """
    parts = split_key(key)
    if parts is None:
        if key.startswith("/") and _LOOKS_LIKE.match(key):
            return [("WI010", _refused_reason(key))]
        return []
    rk = regex_key(key)
    if rk is None:
        flags = parts[1]
        why = "a flag is repeated" if len(set(flags)) != len(flags) else "its pattern is invalid"
        return [
            (
                "WI010",
                (
                    f"looks like a regex but JavaScript refuses it ({why}): SillyTavern "
                    "matches it as plain text, slashes included"
                ),
            )
        ]
    if rk.refused is not None:
        return [("WI011", f"{rk.refused}: this engine never compiles it and counts it as no match")]
    slow = _catastrophic(rk, timeout=timeout)
    if slow:
        return [("WI011", slow)]
    out: list[Diagnosis] = []
    never = _never(rk.source, rk.flags)
    if never:
        out.append(("WI012", never))
    elif _always(rk, timeout=timeout):
        out.append(
            ("WI013", "matches any scan text (even an empty message): the entry always fires")
        )
    out += [("WI014", m) for m in _anchor_notes(rk.source, rk.flags)]
    return out


def _refused_reason(key: str) -> str:
    last = key.rfind("/")
    flags = key[last + 1 :]
    if any(c not in "gimsuy" for c in flags):
        why = f"flags {flags!r} are not all among g i m s u y"
    else:
        why = "a '/' inside the pattern is not escaped as '\\/'"
    return f"looks like a regex but SillyTavern's rule refuses it ({why}): matched as plain text"


def _catastrophic(rk: RegexKey, *, timeout: float) -> str:
    """A message when a crafted input makes the key run out of time, else ``""``."""
    for text in _adversarial(rk.source):
        try:
            rk.test(text, timeout=timeout)
        except RegexTimeout as exc:
            return (
                f"{exc.reason} on a crafted {len(text)}-character input (catastrophic "
                "backtracking): SillyTavern's browser tab would hang on such a chat; this "
                "engine gives up and counts it as no match"
            )
    return ""


def _adversarial(source: str) -> list[str]:
    chars: list[str] = []
    i = 0
    while i < len(source) and len(chars) < 6:
        c = source[i]
        if c == "\\" and i + 1 < len(source):
            rep = _REPS.get(source[i + 1])
            if rep and rep not in chars:
                chars.append(rep)
            i += 2
            continue
        if c.isalnum() and c not in chars:
            chars.append(c)
        elif c == "." and "a" not in chars:
            chars.append("a")
        i += 1
    chars = chars or ["a"]
    texts = []
    for n in (28, 4000):
        for c in chars:
            texts.append("\x01" + c * n + "\x00!")
        if len(chars) > 1:
            texts.append("\x01" + (chars[0] + chars[1]) * (n // 2) + "\x00!")
        texts.append("\x01" + " ".join(chars) * (n // (2 * len(chars)) + 1) + "\x00!")
    return texts


def _has_top_level_bar(source: str) -> bool:
    return "|" in _strip_escapes_and_classes(source)


def _strip_escapes_and_classes(source: str) -> str:
    """The pattern with escapes replaced by ``E`` and classes by ``C``."""
    out = []
    i, in_class = 0, False
    while i < len(source):
        c = source[i]
        if c == "\\":
            out.append("E" if not in_class else "")
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
                out.append("C")
        elif c == "[":
            if source.startswith("[]", i):
                out.append("\0")
                i += 2
                continue
            in_class = True
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _never(source: str, flags: str) -> str:
    """Why the key can never match, or ``""`` (conservative: only sure cases)."""
    if _has_top_level_bar(source):
        return ""
    if "\0" in _strip_escapes_and_classes(source):
        return "contains '[]', which matches no character in JavaScript: it can never match"
    anchored = (source.startswith("^") and "m" not in flags) or "y" in flags
    if not anchored:
        return ""
    rest = source.removeprefix("^")
    first, after = _first_atom(rest)
    if not first or _ZERO_QUANT.match(after):
        return ""
    how = "flag y pins the match to" if "y" in flags else "'^' (without m) matches only at"
    return (
        f"{how} the start of the scan text, which is always the marker U+0001 that "
        f"SillyTavern puts before each message; {first!r} cannot match it, so the key never "
        "matches (write \\x01 instead of ^ to mean 'start of a message')"
    )


def _first_atom(rest: str) -> tuple[str, str]:
    """The first atom if it cannot match U+0001, and the text after it."""
    if not rest:
        return "", ""
    c = rest[0]
    if c == "\\" and len(rest) > 1:
        if rest[1] in "wdsb" or (not rest[1].isalnum() and rest[1] not in "\\"):
            return rest[:2], rest[2:]
        return "", ""
    if _PLAIN.match(c):
        return c, rest[1:]
    return "", ""


def _always(rk: RegexKey, *, timeout: float) -> bool:
    try:
        return all(rk.test(p, timeout=timeout) for p in _PROBES)
    except RegexTimeout:
        return False


def _anchor_notes(source: str, flags: str) -> list[str]:
    out = []
    if source.startswith("^") and "m" in flags and _first_atom(source[1:])[0]:
        out.append(
            "'^' with the m flag matches only after a line break inside a message, never at "
            "the start of a message (SillyTavern prefixes each message with U+0001; use \\x01)"
        )
    stripped = _strip_escapes_and_classes(source)
    if stripped.endswith("$") and "m" not in flags and "|" not in stripped:
        out.append(
            "'$' (without m) matches only at the very end of the scan text, i.e. the end of "
            "the oldest scanned message or of text appended after it, not at the end of each "
            "message"
        )
    return out
