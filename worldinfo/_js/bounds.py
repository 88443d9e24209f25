"""Bounds on a JSON text, checked on its bytes before ``JSON.parse`` spends any memory.

``JSON.parse`` of 60 MiB of ``[{},{},...]`` builds 20 million objects (gigabytes in Python);
the bytes give the counts away first. Every step here is a C-speed byte operation (``replace``,
one regex ``sub`` with a possessive string pattern, ``count``, ``translate``, ``accumulate``),
window by window, so refusing costs a fraction of a second and one copy of the input:

1. escapes that hide a quote (``\\\\`` and ``\\"``) are overwritten with two neutral bytes, so
   every remaining ``"`` opens or closes a string and lengths stay byte-exact;
2. strings of at most ``max_json_string_bytes`` bytes are cut out; a quote left over is a
   longer string (a window too short to hold one keeps only quotes, brackets and commas
   and cuts its strings there: ``structure_of``);
3. what is left is structure: ``[`` + ``{`` are the containers, commas + containers bound
   the items, and the deepest nesting is the maximum running sum of brackets.

A text short enough that no string in it can be too long (every book there is) is first
counted whole (``_within_at_once``: one ``translate`` and a few passes over what is left,
about half the time of the windows); only a text it cannot clear goes through the windows,
which then name the bound it exceeds.

Valid JSON within the bounds always passes and valid JSON outside them is always refused.
Invalid JSON can pass: the parser then stops at its first error, and up to there it sees the
same strings and brackets as this scan, so it never builds more than the bounds allow.
"""

from __future__ import annotations

import functools
import itertools
import operator
import re

from worldinfo._record import record

MiB = 1024 * 1024

_WINDOW = 1 << 20
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_TWO_FOR_OPENERS = bytes.maketrans(b"[]{}", b"\x02\x00\x02\x00")
_ONE_KIND = bytes.maketrans(b"{}", b"[]")
_MOST_PASSES = 32  # deeper texts go to the window scan (``max_depth``)
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{},')
_ANY_STRING = re.compile(rb'"[^"]*+(?:"|\Z)')
_HIDES_QUOTE = re.compile(rb'\\[\\"]')  # an escaped backslash or quote


@record
class JSONBounds:
    """How much one JSON text may hold (names as in ``importers.Limits``).

    Args:
        max_json_depth: deepest nesting of arrays/objects.
        max_json_containers: most arrays + objects.
        max_json_items: most values inside arrays and objects (array elements + object
            members; counted as commas + containers, so an empty container counts one).
        max_json_string_bytes: longest string (or key), in bytes of JSON text.
    """

    max_json_depth: int = 100
    max_json_containers: int = 500_000
    max_json_items: int = 1_000_000
    max_json_string_bytes: int = 16 * MiB


DEFAULT_JSON_BOUNDS = JSONBounds()


class JSONLimitError(ValueError):
    """A JSON text exceeds one of its ``JSONBounds``; nothing was parsed.

    Args:
        limit: the ``JSONBounds`` / ``Limits`` field name that was exceeded.
        allowed: its value.
        message: what was found, naming the limit.
    """

    def __init__(self, message: str, *, limit: str, allowed: int) -> None:
        super().__init__(message)
        self.limit = limit
        self.allowed = allowed


@functools.lru_cache(maxsize=8)
def _short_strings(n: int) -> re.Pattern[bytes]:
    # A string of at most n bytes, also one left open at the end (a truncated file).
    return re.compile(rb'"[^"]{0,%d}+(?:"|\Z)' % n)


@functools.lru_cache(maxsize=8)
def _up_to_long_string(n: int) -> re.Pattern[bytes]:
    return re.compile(rb'(?:"[^"]{0,%d}+(?:"|\Z)|[^"]++)*+' % n)


def _too_many(found: int, what: str, limit: str, allowed: int) -> JSONLimitError:
    return JSONLimitError(
        f"JSON text has more {what} than {limit}={allowed} allows ({found} counted when "
        "the scan stopped); refused",
        limit=limit,
        allowed=allowed,
    )


def _long_string(at: int, allowed: int) -> JSONLimitError:
    return JSONLimitError(
        f"JSON string at byte {at} is longer than max_json_string_bytes={allowed} allows; refused",
        limit="max_json_string_bytes",
        allowed=allowed,
    )


def structure_of(text: bytes) -> bytes:
    """The brackets and commas of ``text`` (JSON text whose escaped quotes and backslashes
    are overwritten, starting outside a string) that lie outside its strings.

    Four C-speed passes instead of one regex match per string: keep only quotes, brackets
    and commas; drop every ``""`` pair (an empty remainder of a string, or the gap between
    two strings with no bracket or comma in it: either way the quotes still alternate
    open/close and nothing outside a string is lost); cut the few strings left (those that
    hold a bracket or a comma, or one left open at the end).
    """
    return _cut_strings(text.translate(None, _NOT_STRUCTURE))


def _cut_strings(kept: bytes) -> bytes:
    # ``kept``: only quotes, brackets and commas (``structure_of`` after its first pass)
    kept = kept.replace(b'""', b"")
    return _ANY_STRING.sub(b"", kept) if b'"' in kept else kept


def max_depth(structure: bytes) -> int:
    """The deepest bracket nesting in ``structure`` (JSON text without its strings),
    counted from 0 at its start (negative when it only closes)."""
    brackets = structure.translate(None, _NOT_BRACKETS).translate(_TWO_FOR_OPENERS)
    if not brackets:
        return 0
    # after bracket i the depth is openers_so_far - closers_so_far = 2 * openers - i - 1
    running = map(operator.sub, itertools.accumulate(brackets), range(len(brackets)))
    deepest: int = max(running)
    return deepest - 1


class _Tally:
    """Counts over the structure seen so far; raises as soon as a bound is passed."""

    def __init__(self, bounds: JSONBounds) -> None:
        self.bounds = bounds
        self.containers = 0
        self.items = 0
        self.depth = 0  # negative: more closers than openers, the parser stops there
        self.strings = 0

    def add_strings(self, count: int) -> None:
        # Each item holds at most a key and a value (plus the top-level value): this bounds
        # the work of cutting strings out before a single item is counted.
        self.strings += count
        allowed = self.bounds.max_json_items
        if self.strings > 2 * allowed + 1:
            what = f"strings than two per item under max_json_items={allowed} allow"
            raise JSONLimitError(
                f"JSON text has more {what} ({self.strings} counted when the scan stopped); "
                "refused",
                limit="max_json_items",
                allowed=allowed,
            )

    def add(self, structure: bytes) -> None:
        b = self.bounds
        opens = structure.count(b"[") + structure.count(b"{")
        self.containers += opens
        if self.containers > b.max_json_containers:
            what, limit = "arrays and objects", "max_json_containers"
            raise _too_many(self.containers, what, limit, b.max_json_containers)
        self.items += structure.count(b",") + opens
        if self.items > b.max_json_items:
            what, limit = "values in arrays and objects", "max_json_items"
            raise _too_many(self.items, what, limit, b.max_json_items)
        deep = self.depth >= 0 and self.depth + opens > b.max_json_depth  # else: cannot be
        if deep and self.depth + max_depth(structure) > b.max_json_depth:
            raise JSONLimitError(
                f"JSON nested deeper than max_json_depth={b.max_json_depth} levels; refused",
                limit="max_json_depth",
                allowed=b.max_json_depth,
            )
        self.depth += opens - structure.count(b"]") - structure.count(b"}")


def _within_at_once(data: bytes, bounds: JSONBounds) -> bool:
    """True when ``data`` (escapes hidden, no longer than ``max_json_string_bytes`` + 1, so
    no string in it can be too long) is within every bound; ``False`` when it is not, or
    may not be: the window scan then decides and names the bound.

    The same counts as the window scan, over the whole text at once: one ``translate``,
    the strings cut, then the items are the commas + containers and the depth is how many
    passes of dropping every ``[]`` pair (brackets of one kind) leave nothing. Each pass
    drops the innermost containers, so a balanced text is empty after exactly as many
    passes as it is deep; an unbalanced one never is (the window scan then decides).
    """
    kept = data.translate(None, _NOT_STRUCTURE)
    structure = _cut_strings(kept)
    strings = (len(kept) - len(structure)) // 2  # at most: the quotes and what strings held
    if strings > 2 * bounds.max_json_items + 1:
        return False
    brackets = structure.translate(_ONE_KIND, _NOT_BRACKETS)
    opens = brackets.count(b"[")
    commas = len(structure) - len(brackets)
    if opens > bounds.max_json_containers or opens + commas > bounds.max_json_items:
        return False
    for _ in range(min(bounds.max_json_depth, _MOST_PASSES)):
        if not brackets:
            return True
        fewer = brackets.replace(b"[]", b"")
        if len(fewer) == len(brackets):
            return False  # unbalanced
        brackets = fewer
    return not brackets


def check_json_bounds(raw: bytes | str, bounds: JSONBounds = DEFAULT_JSON_BOUNDS) -> None:
    """Refuse a JSON text that exceeds ``bounds``, before it is parsed.

    The text is scanned in windows of about ``_WINDOW`` bytes that start and end outside
    strings (quote parity), so the scan stops early and its memory stays small.

    Args:
        raw: the JSON text (UTF-8 bytes, or str).
        bounds: the limits.

    Raises:
        JSONLimitError: naming the first limit exceeded.
    """
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    n = bounds.max_json_string_bytes
    most = min(bounds.max_json_depth, bounds.max_json_containers, bounds.max_json_items)
    # Counts over all bytes (strings too) bound every count from above; past one window
    # the scan below is the cheaper way to count.
    small = len(data) <= min(n, _WINDOW)
    if small and data.count(b",") + data.count(b"[") + data.count(b"{") <= most:
        return
    if b"\\" in data:  # one left-to-right pass pairs backslashes as the two replaces did
        data = _HIDES_QUOTE.sub(b"__", data)
    if len(data) <= n + 1 and _within_at_once(data, bounds):
        return
    short, tally, pos = _short_strings(n), _Tally(bounds), 0
    while pos < len(data):
        end = min(pos + _WINDOW, len(data))
        quotes = data.count(b'"', pos, end)
        if quotes % 2:  # inside a string: end the window after it
            opening, close = data.rfind(b'"', pos, end), data.find(b'"', end)
            end, quotes = (len(data), quotes) if close < 0 else (close + 1, quotes + 1)
            if end - opening - 2 > n:  # that string alone is too long: no need to cut it out
                raise _long_string(opening, n)
        tally.add_strings(quotes // 2)
        if end - pos <= n + 1:  # no string in this window can be longer than n bytes
            structure = structure_of(data[pos:end])
        else:
            structure = short.sub(b"", data[pos:end])
            if b'"' in structure:
                match = _up_to_long_string(n).match(data, pos)
                raise _long_string(match.end() if match else pos, n)
        tally.add(structure)
        pos = end
