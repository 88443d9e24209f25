"""What an entry's own fields decide, read the way SillyTavern reads them (R26, R31-R32).

One definition per rule, shared by both paths: ``passes._select`` and ``keys.keys_match``
apply them during the scan, and the fast path (``fast.slots``, ``fast.scan``) precomputes
from the very same functions. Callers use them through this module (``entry_rules.x``), so
a rule changed here changes both paths. Pure; no scan state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.types import Settings

Fields = Mapping[str, JSONValue]

ACTIVATE = "@@activate"
DONT_ACTIVATE = "@@dont_activate"
NEVER_LOGIC = 4
"""``selectiveLogic`` values other than 0-3: the secondary test never passes."""


# --- the per-entry checks of R31 that read only the entry, in ``_select``'s order -------


def is_disabled(entry: Fields) -> bool:
    """R31 step 2: ``disable`` loosely equal to ``true``."""
    return _js.loose_eq_true(entry.get("disable", UNDEFINED))


def triggers(entry: Fields) -> list[JSONValue] | None:
    """R31 (1.15): the generation types the entry is limited to, or ``None`` (any)."""
    value = entry.get("triggers", UNDEFINED)
    return value if isinstance(value, list) and value else None


def character_filter(entry: Fields) -> dict[str, JSONValue] | None:
    """R31 steps 3-4: the character filter object, or ``None`` when it does not apply."""
    cf = entry.get("characterFilter", UNDEFINED)
    return cf if _js.truthy(cf) and isinstance(cf, dict) else None


def delay_level(entry: Fields) -> JSONValue:
    """R29: ``delayUntilRecursion`` (truthy: the entry waits for that recursion level)."""
    return entry.get("delayUntilRecursion", UNDEFINED)


def excludes_recursion(entry: Fields) -> bool:
    """R31: ``excludeRecursion`` (not scanned in recursion passes)."""
    return _js.truthy(entry.get("excludeRecursion", UNDEFINED))


def has_decorator(entry: Fields, name: str) -> bool:
    """R31: the entry carries decorator ``name`` (``@@activate``, ``@@dont_activate``)."""
    decorators = entry.get("decorators", [])
    return isinstance(decorators, (list, str)) and name in decorators


def is_constant(entry: Fields) -> bool:
    """R31: ``constant`` entries activate without keys."""
    return _js.truthy(entry.get("constant", UNDEFINED))


# --- keys --------------------------------------------------------------------------------


def primary_keys(entry: Fields) -> list[JSONValue] | None:
    """R31 step 16: the primary keys, or ``None`` when there are none to test."""
    keys = entry.get("key", UNDEFINED)
    return keys if isinstance(keys, list) and keys else None


def secondary_keys(entry: Fields) -> list[JSONValue] | None:
    """R32: the secondary keys when they apply (``selective`` and a non-empty list)."""
    sec = entry.get("keysecondary", UNDEFINED)
    if not _js.truthy(entry.get("selective", UNDEFINED)) or not isinstance(sec, list) or not sec:
        return None
    return sec


def selective_logic(entry: Fields) -> int:
    """R32: ``selectiveLogic`` as 0-3 (AND_ANY, NOT_ALL, NOT_ANY, AND_ALL), else 4."""
    logic = _js.coalesce(entry.get("selectiveLogic", UNDEFINED), 0)
    return next((i for i in range(4) if _js.strict_eq(logic, i)), NEVER_LOGIC)


def secondary_holds(logic: int, hits: Iterable[bool]) -> bool:
    """R32: does the secondary test pass, given each secondary key's hit, in order?

    AND_ANY and NOT_ALL stop at the first deciding key, as upstream does; NOT_ANY, AND_ALL
    and an unknown logic test every key first.
    """
    if logic == 0:
        return any(hits)
    if logic == 1:
        return any(not h for h in hits)
    tested = list(hits)
    if logic == 2:
        return not any(tested)
    if logic == 3:
        return all(tested)
    return False


def case_sensitive(entry: Fields, settings: Settings) -> bool:
    """R22: the entry's ``caseSensitive``, else the global setting."""
    return _js.truthy(_js.coalesce(entry.get("caseSensitive", UNDEFINED), settings.case_sensitive))


def whole_words(entry: Fields, settings: Settings) -> bool:
    """R23: the entry's ``matchWholeWords``, else the global setting; whole-word matching
    applies to a key when this holds and the key is ``one_word``."""
    whole = _js.coalesce(entry.get("matchWholeWords", UNDEFINED), settings.match_whole_words)
    return _js.truthy(whole)


def one_word(needle: str) -> bool:
    """R24: the key has no inner whitespace (a phrase is matched as a substring)."""
    return len(_js.split_ws(needle)) <= 1
