"""One scan pass (R30-R49): per-entry checks in upstream order, candidate order, inclusion
groups, probability and the 1.15 budget pass."""

from __future__ import annotations

from typing import TYPE_CHECKING

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.groups import filter_groups
from worldinfo.timed_effects import entry_key
from worldinfo.types import ScanState

if TYPE_CHECKING:
    from worldinfo.engine import _Scan

Entry = dict[str, JSONValue]


def run_pass(scan: _Scan) -> tuple[list[Entry], list[Entry]]:
    """Run one pass; return its candidates and its "successful" entries (R49)."""
    nominated: list[Entry] = []
    for entry in scan.entries:
        chosen = _select(scan, entry)
        if chosen is not None and not any(chosen is c for c in nominated):
            nominated.append(chosen)
    sticky = scan.timed.is_active
    candidates = sorted(
        nominated,
        key=lambda e: (0 if sticky("sticky", e) else 1, scan.index.get(id(e), -1)),
    )
    base_tokens = scan.count_tokens(scan.all_activated_text)
    filter_groups(
        candidates,
        activated=scan.activated,
        buffer=scan.buffer,
        state=scan.state,
        timed=scan.timed,
        rng=scan.rng,
    )
    _probability_and_budget(scan, candidates, base_tokens)
    successful = [e for e in candidates if id(e) not in scan.failed]
    return candidates, successful


def _filtered_by_character(scan: _Scan, entry: Entry) -> bool:
    """R31 steps 3-4: character name and tag filters."""
    cf = entry.get("characterFilter", UNDEFINED)
    if not _js.truthy(cf) or not isinstance(cf, dict):
        return False
    exclude = _js.truthy(cf.get("isExclude", UNDEFINED))
    names = cf.get("names", UNDEFINED)
    if isinstance(names, (list, str)) and len(names) > 0:
        file_name: JSONValue = scan.character.file_name if scan.character else UNDEFINED
        if isinstance(names, str):
            inc = _js.to_string(file_name) in names
        else:
            inc = any(_js.strict_eq(n, file_name) for n in names)
        if inc == exclude:
            return True
    tags = cf.get("tags", UNDEFINED)
    if isinstance(tags, (list, str)) and len(tags) > 0 and scan.character is not None:
        if isinstance(tags, str):
            hit = any(t in tags for t in scan.character.tags)
        else:
            hit = any(_js.strict_eq(t, x) for t in scan.character.tags for x in tags)
        if hit == exclude:
            return True
    return False


def _select(scan: _Scan, entry: Entry) -> Entry | None:
    """R31: the checks in SillyTavern's order; the object to nominate, or ``None``."""
    key = entry_key(entry)
    if id(entry) in scan.failed or key in scan.activated:
        return None
    if _js.loose_eq_true(entry.get("disable", UNDEFINED)):
        return None
    triggers = entry.get("triggers", UNDEFINED)
    if (
        isinstance(triggers, list)
        and triggers
        and scan.trigger not in [t for t in triggers if isinstance(t, str)]
    ):
        return None
    if _filtered_by_character(scan, entry):
        return None
    timed = scan.timed
    is_sticky = timed.is_active("sticky", entry)
    if timed.is_active("delay", entry):
        return None
    if timed.is_active("cooldown", entry) and not is_sticky:
        return None
    delay_level = entry.get("delayUntilRecursion", UNDEFINED)
    recursion = scan.state == ScanState.RECURSION
    if (
        not is_sticky
        and _js.truthy(delay_level)
        and (not recursion or _js.gt(delay_level, scan.current_level))
    ):
        return None
    if (
        recursion
        and _js.truthy(scan.settings.recursive)
        and _js.truthy(entry.get("excludeRecursion", UNDEFINED))
        and not is_sticky
    ):
        return None
    decorators = entry.get("decorators", [])
    if "@@activate" in decorators:
        return entry
    if "@@dont_activate" in decorators:
        return None
    if key in scan.forced:
        return scan.forced[key]
    if _js.truthy(entry.get("constant", UNDEFINED)) or is_sticky:
        return entry
    return entry if _keys_match(scan, entry) else None


def _test(scan: _Scan, haystack: str, key: JSONValue, entry: Entry) -> bool:
    text = scan.substitute(key)
    return bool(text) and scan.buffer.match_key(haystack, _js.trim(text), entry)


def _keys_match(scan: _Scan, entry: Entry) -> bool:
    """R31 steps 16-20 and R32: primary keys, then secondary logic."""
    keys = entry.get("key", UNDEFINED)
    if not isinstance(keys, list) or not keys:
        return False
    haystack = scan.buffer.haystack(entry, scan.state)
    if not any(_test(scan, haystack, k, entry) for k in keys):
        return False
    secondary = entry.get("keysecondary", UNDEFINED)
    if not _js.truthy(entry.get("selective", UNDEFINED)) or not isinstance(secondary, list):
        return True
    if not secondary:
        return True
    logic = _js.coalesce(entry.get("selectiveLogic", UNDEFINED), 0)
    if _js.strict_eq(logic, 0):
        return any(_test(scan, haystack, k, entry) for k in secondary)
    if _js.strict_eq(logic, 1):
        return any(not _test(scan, haystack, k, entry) for k in secondary)
    hits = [_test(scan, haystack, k, entry) for k in secondary]
    if _js.strict_eq(logic, 2):
        return not any(hits)
    if _js.strict_eq(logic, 3):
        return all(hits)
    return False


def _probability_and_budget(scan: _Scan, candidates: list[Entry], base_tokens: int) -> None:
    """R48 as reworked in 1.15: ``ignoreBudget`` and an overflow that lasts the whole scan."""
    remaining_ignore = sum(1 for e in candidates if _js.truthy(e.get("ignoreBudget")))
    new_content = ""
    for entry in candidates:
        ignore = _js.truthy(entry.get("ignoreBudget", UNDEFINED))
        if ignore:
            remaining_ignore -= 1
        if scan.overflowed and not ignore:
            if remaining_ignore > 0:
                continue
            break
        if (
            _js.truthy(entry.get("useProbability", UNDEFINED))
            and not _js.strict_eq(entry.get("probability", UNDEFINED), 100)
            and not scan.timed.is_active("sticky", entry)
        ):
            roll = scan.rng() * 100
            if not _js.le(roll, entry.get("probability", UNDEFINED)):
                scan.failed.add(id(entry))
                continue
        entry["content"] = scan.substitute(entry.get("content", ""))
        new_content += entry["content"] + "\n"
        if not ignore and base_tokens + scan.count_tokens(new_content) >= scan.budget:
            scan.overflowed = True
            continue
        scan.activated[entry_key(entry)] = entry
