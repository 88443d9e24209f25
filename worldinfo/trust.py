"""What an untrusted entry may not do, enforced where the engine acts.

An entry is untrusted when its ``Origin.trusted`` is ``False`` or its stored
``extensions.worldinfo_origin.trusted`` is ``false`` (the mark an exported untrusted book
carries, so it re-imports as untrusted). ``TrustPolicy`` lists the powers such an entry is
denied; each is one switch, and every default denies it:

* forced activation: ``constant`` becomes ``false``, ``@@activate`` decorator lines are
  disarmed, ``sticky`` is dropped (``restrict``, applied when the scan loads the entry);
* ``ignoreBudget`` becomes ``false``; a system-role entry at depth 0 (position 4, the slot
  next to the reply) gets the user role instead (``restrict``);
* regex keys, and keys that match almost any text (empty or blank once trimmed, shorter
  than ``min_key_length`` characters, or without any letter or digit): refused on the key
  as it is about to be matched, after macro substitution (``key_refusal``), so a macro
  cannot turn a plain-looking key into a pattern;
* storing variables through the ``{{setvar}}`` family of macros (local and global): the macro
  evaluator gets no write access while any loaded book holds an untrusted entry
  (``macro_writes``; the evaluator is called per text, not per entry, so the switch is per
  session).

A refused key never matches. Entries without an ``Origin`` and trusted ones are untouched,
so every golden case is scanned exactly as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from operator import attrgetter, contains, methodcaller

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo._js.regex import split_key
from worldinfo._record import record
from worldinfo.types import Book, Entry, Origin, Position, Role, entry_key

ORIGIN_FIELD = "worldinfo_origin"
"""The ``extensions`` member that carries an entry's provenance through export."""

_ORIGIN = attrgetter("origin")
_DATA = attrgetter("data")
_EXTENSIONS = methodcaller("get", "extensions")
_ACTIVATE = re.compile(r"^(@@@?)activate(?=$|[\s\r])")


@record
class TrustPolicy:
    """What entries of untrusted origin may do (``False``: denied, the default).

    Args:
        allow_constant: keep ``constant`` entries always on.
        allow_activate_decorator: keep ``@@activate`` (activation without keys).
        allow_sticky: keep ``sticky`` (staying active for later generations).
        allow_regex_keys: match ``/pattern/flags`` keys as regular expressions.
        allow_ignore_budget: keep ``ignoreBudget`` (insertion past the token budget).
        allow_system_at_depth_zero: keep the system role for at-depth entries at depth 0.
        allow_broad_keys: match keys that match almost any text (see the module docs).
        allow_variable_writes: let ``{{setvar}}``-family macros store variables while an
            untrusted entry is loaded.
        min_key_length: the shortest key (characters, trimmed) that is not "broad".
    """

    allow_constant: bool = False
    allow_activate_decorator: bool = False
    allow_sticky: bool = False
    allow_regex_keys: bool = False
    allow_ignore_budget: bool = False
    allow_system_at_depth_zero: bool = False
    allow_broad_keys: bool = False
    allow_variable_writes: bool = False
    min_key_length: int = 2

    def macro_writes(self, books: Iterable[Book | None]) -> bool:
        """May the macro evaluator store variables while ``books`` are loaded?"""
        if self.allow_variable_writes:
            return True
        return not any(book_has_untrusted(b) for b in books if b is not None)


DEFAULT_TRUST = TrustPolicy()


def origin_mark(origin: Origin) -> dict[str, JSONValue]:
    """The ``extensions.worldinfo_origin`` object recording ``origin``."""
    mark: dict[str, JSONValue] = {"trusted": origin.trusted}
    for name in ("file", "format", "container"):
        value = getattr(origin, name)
        if value is not None:
            mark[name] = value
    return mark


def marked_untrusted(data: Mapping[str, JSONValue]) -> bool:
    """Does the stored entry carry ``extensions.worldinfo_origin.trusted == false``?"""
    ext = data.get("extensions")
    mark = ext.get(ORIGIN_FIELD) if isinstance(ext, dict) else None
    return isinstance(mark, dict) and mark.get("trusted") is False


def is_untrusted(entry: Entry) -> bool:
    """Is ``entry`` of untrusted origin (its ``Origin`` or its stored mark says so)?"""
    return (entry.origin is not None and not entry.origin.trusted) or marked_untrusted(entry.data)


def untrusted_entries(entries: Sequence[Entry]) -> list[Entry]:
    """The entries ``is_untrusted`` holds for, in order; the others are ruled out in bulk
    (no ``Origin`` that is not trusted, no ``extensions`` object holding the mark)."""
    origins = set(map(_ORIGIN, entries))
    if any(o is not None and not o.trusted for o in origins):
        return [e for e in entries if is_untrusted(e)]
    datas = list(map(_DATA, entries))
    if not any(map(contains, datas, repeat("extensions"))):  # the common case, in C
        return []
    marked = [ext for ext in map(_EXTENSIONS, datas) if isinstance(ext, dict)]
    if not any(ORIGIN_FIELD in ext for ext in marked):
        return []
    return [e for e in entries if marked_untrusted(e.data)]


def book_has_untrusted(book: Book) -> bool:
    """Has ``book`` an untrusted entry? Decided once per book (``Book.derived``): a service
    building a session per request would otherwise walk every entry each time."""
    known = book.derived.get("has_untrusted")
    if not isinstance(known, bool):
        known = bool(untrusted_entries(book.entries or ()))
        book.derived["has_untrusted"] = known
    return known


def untrusted_keys(books: Iterable[Book | None]) -> frozenset[str]:
    """``"world.uid"`` of every untrusted entry of ``books`` (the scan's activation keys)."""
    out: set[str] = set()
    for book in books:
        if book is None or not book_has_untrusted(book):
            continue
        for entry in untrusted_entries(book.entries or ()):
            out.add(entry_key({"world": book.name, "uid": entry.data.get("uid", UNDEFINED)}))
    return frozenset(out)


def disarm_activate(content: str) -> str:
    """``content`` with its ``@@activate`` / ``@@@activate`` decorator lines renamed
    ``@@untrusted_activate`` (unknown, so no effect; still stripped from the prompt)."""
    if not content.startswith("@@"):
        return content
    lines = content.split("\n")
    for i, line in enumerate(lines):
        if not line.startswith("@@"):
            break
        lines[i] = _ACTIVATE.sub(r"\1untrusted_activate", line)
    return "\n".join(lines)


def restrict(data: Mapping[str, JSONValue], policy: TrustPolicy) -> dict[str, JSONValue]:
    """A copy of an untrusted entry object without the field powers ``policy`` denies."""
    out = dict(data)
    if not policy.allow_constant and _js.truthy(out.get("constant", UNDEFINED)):
        out["constant"] = False
    if not policy.allow_sticky and not _js.nullish(out.get("sticky", UNDEFINED)):
        out["sticky"] = None
    if not policy.allow_ignore_budget and _js.truthy(out.get("ignoreBudget", UNDEFINED)):
        out["ignoreBudget"] = False
    content = out.get("content", UNDEFINED)
    if not policy.allow_activate_decorator and isinstance(content, str):
        out["content"] = disarm_activate(content)
    if not policy.allow_system_at_depth_zero and _system_at_depth_zero(out):
        out["role"] = Role.USER.value
    return out


def _system_at_depth_zero(data: Mapping[str, JSONValue]) -> bool:
    if not _js.strict_eq(data.get("position", UNDEFINED), Position.AT_DEPTH.value):
        return False
    depth = _js.to_number(_js.coalesce(data.get("depth", UNDEFINED), 4))
    role = _js.to_number(_js.coalesce(data.get("role", UNDEFINED), 0))
    return depth <= 0 and role == Role.SYSTEM.value


def key_refusal(key: str, policy: TrustPolicy) -> str | None:
    """Why an untrusted entry may not use ``key`` (substituted; trimmed here), or ``None``.

    Args:
        key: the key as it is about to be matched (after macro substitution).
        policy: the trust policy.

    Returns:
        ``"regex key"``, ``"matches almost any text"``, or ``None`` when it may be used.
    """
    text = _js.trim(key)
    if not policy.allow_regex_keys and split_key(text) is not None:
        return "regex key"
    if not policy.allow_broad_keys and (
        len(text) < max(policy.min_key_length, 1) or not any(c.isalnum() for c in text)
    ):
        return "matches almost any text"
    return None
