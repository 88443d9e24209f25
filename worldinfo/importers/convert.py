"""SillyTavern's world-info converters, rule for rule (spec R81, R83-R85), plus KoboldAI.

Each converter returns a SillyTavern world object ``{"entries": {...}, ...}`` whose entries
start from the new-entry template and then get the mapped fields. A source field that is
missing becomes ``undefined`` in SillyTavern, so its key is left out here too. Where
SillyTavern's converter would throw, these raise ``Reject`` with the offending path.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from worldinfo.importers.errors import Reject, reject
from worldinfo.interchange import (
    ENTRY_TEMPLATE,
    UNDEFINED,
    JSONValue,
    coalesce,
    to_string,
    trim,
    truthy,
)

World = dict[str, JSONValue]

# Converter fields shared by the NovelAI, Agnai and RisuAI converters (R83).
_PLAIN_DEFAULTS: dict[str, JSONValue] = {
    "keysecondary": [],
    "constant": False,
    "selective": False,
    "vectorized": False,
    "selectiveLogic": 0,
    "position": 0,
    "excludeRecursion": False,
    "delayUntilRecursion": False,
    "probability": 100,
    "useProbability": True,
    "group": "",
    "groupOverride": False,
    "groupWeight": 100,
    "scanDepth": None,
    "caseSensitive": None,
    "matchWholeWords": None,
    "useGroupScoring": None,
    "automationId": "",
    "role": 0,
    "sticky": None,
    "cooldown": None,
    "delay": None,
}


def new_entry(uid: JSONValue, fields: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """``{uid, ...template}`` then ``fields``; ``undefined`` values are left out."""
    out: dict[str, JSONValue] = {"uid": uid, **copy.deepcopy(dict(ENTRY_TEMPLATE))}
    out.update(fields)
    return {k: v for k, v in out.items() if v is not UNDEFINED}


def _get(obj: JSONValue, key: str) -> JSONValue:
    """Property read with JavaScript's ``undefined`` for absent keys and non-objects."""
    return obj.get(key, UNDEFINED) if isinstance(obj, dict) else UNDEFINED


def _not(v: JSONValue) -> bool:
    return not truthy(v)


def _entries_list(obj: Mapping[str, JSONValue], key: str, where: str) -> list[Any]:
    items = obj.get(key, UNDEFINED)
    if not isinstance(items, list):
        raise reject(f"{where}.{key}", f"must be an array (SillyTavern calls {key}.forEach)")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise reject(f"{where}.{key}.{i}", "entry must be an object")
    return items


def convert_character_book(book: Mapping[str, JSONValue], *, where: str = "$") -> World:
    """``convertCharacterBook`` (R81): a V2/V3 ``character_book`` to a world object.

    The input is deep-copied first; entries without ``id`` get their index as ``id`` in that
    copy, which becomes ``originalData`` (as SillyTavern mutates the card book).

    Raises:
        Reject: when ``entries`` is not an array of objects.
    """
    original = copy.deepcopy(dict(book))
    items = _entries_list(original, "entries", where)
    entries: dict[str, JSONValue] = {}
    for i, e in enumerate(items):
        if _get(e, "id") is UNDEFINED:
            e["id"] = i
        ext = _get(e, "extensions")

        def ext_get(k: str, ext: JSONValue = ext) -> JSONValue:
            return _get(ext, k)

        before = _get(e, "position") == "before_char"
        fields: dict[str, JSONValue] = {
            "key": _get(e, "keys"),
            "keysecondary": _get(e, "secondary_keys") if truthy(_get(e, "secondary_keys")) else [],
            "comment": _get(e, "comment") if truthy(_get(e, "comment")) else "",
            "content": _get(e, "content"),
            "constant": _get(e, "constant") if truthy(_get(e, "constant")) else False,
            "selective": _get(e, "selective") if truthy(_get(e, "selective")) else False,
            "order": _get(e, "insertion_order"),
            "position": coalesce(ext_get("position"), 0 if before else 1),
            "excludeRecursion": coalesce(ext_get("exclude_recursion"), False),
            "preventRecursion": coalesce(ext_get("prevent_recursion"), False),
            "delayUntilRecursion": coalesce(ext_get("delay_until_recursion"), False),
            "disable": _not(_get(e, "enabled")),
            "addMemo": truthy(_get(e, "comment")),
            "displayIndex": coalesce(ext_get("display_index"), i),
            "probability": coalesce(ext_get("probability"), 100),
            "useProbability": coalesce(ext_get("useProbability"), True),
            "depth": coalesce(ext_get("depth"), 4),
            "selectiveLogic": coalesce(ext_get("selectiveLogic"), 0),
            "outletName": coalesce(ext_get("outlet_name"), ""),
            "group": coalesce(ext_get("group"), ""),
            "groupOverride": coalesce(ext_get("group_override"), False),
            "groupWeight": coalesce(ext_get("group_weight"), 100),
            "scanDepth": coalesce(ext_get("scan_depth"), None),
            "caseSensitive": coalesce(ext_get("case_sensitive"), None),
            "matchWholeWords": coalesce(ext_get("match_whole_words"), None),
            "useGroupScoring": coalesce(ext_get("use_group_scoring"), None),
            "automationId": coalesce(ext_get("automation_id"), ""),
            "role": coalesce(ext_get("role"), 0),
            "vectorized": coalesce(ext_get("vectorized"), False),
            "sticky": coalesce(ext_get("sticky"), None),
            "cooldown": coalesce(ext_get("cooldown"), None),
            "delay": coalesce(ext_get("delay"), None),
            "matchPersonaDescription": coalesce(ext_get("match_persona_description"), False),
            "matchCharacterDescription": coalesce(ext_get("match_character_description"), False),
            "matchCharacterPersonality": coalesce(ext_get("match_character_personality"), False),
            "matchCharacterDepthPrompt": coalesce(ext_get("match_character_depth_prompt"), False),
            "matchScenario": coalesce(ext_get("match_scenario"), False),
            "matchCreatorNotes": coalesce(ext_get("match_creator_notes"), False),
            "triggers": coalesce(ext_get("triggers"), []),
            "ignoreBudget": coalesce(ext_get("ignore_budget"), False),
            "extensions": coalesce(ext, {}),
        }
        uid = e["id"]
        entries[to_string(uid)] = new_entry(copy.deepcopy(uid), copy.deepcopy(fields))
    return {"entries": entries, "originalData": original}


def _plain(i: int, fields: dict[str, JSONValue]) -> dict[str, JSONValue]:
    merged = dict(_PLAIN_DEFAULTS)
    merged.update(fields)
    merged["displayIndex"] = i
    return new_entry(i, copy.deepcopy(merged))


def convert_novel_lorebook(obj: Mapping[str, JSONValue], *, where: str = "$") -> World:
    """``convertNovelLorebook`` (R83): a NovelAI lorebook to a world object.

    Raises:
        Reject: when ``entries`` is not an array of objects or a ``displayName`` is not a
            string (SillyTavern's converter throws there).
    """
    entries: dict[str, JSONValue] = {}
    for i, e in enumerate(_entries_list(obj, "entries", where)):
        name = _get(e, "displayName")
        if name is not UNDEFINED and not isinstance(name, str):
            raise reject(f"{where}.entries.{i}.displayName", "must be a string when present")
        fields: dict[str, JSONValue] = {
            "key": _get(e, "keys"),
            "comment": name if truthy(name) else "",
            "content": _get(e, "text"),
            "order": coalesce(_get(_get(e, "contextConfig"), "budgetPriority"), 0),
            "disable": _not(_get(e, "enabled")),
            "addMemo": isinstance(name, str) and trim(name) != "",
        }
        entries[str(i)] = _plain(i, fields)
    return {"entries": entries}


def convert_agnai_memory_book(obj: Mapping[str, JSONValue], *, where: str = "$") -> World:
    """``convertAgnaiMemoryBook`` (R84): an Agnai memory book to a world object.

    Raises:
        Reject: when ``entries`` is missing or not an array of objects.
    """
    entries: dict[str, JSONValue] = {}
    for i, e in enumerate(_entries_list(obj, "entries", where)):
        fields: dict[str, JSONValue] = {
            "key": _get(e, "keywords"),
            "comment": _get(e, "name"),
            "content": _get(e, "entry"),
            "order": _get(e, "weight"),
            "disable": _not(_get(e, "enabled")),
            "addMemo": truthy(_get(e, "name")),
        }
        entries[str(i)] = _plain(i, fields)
    return {"entries": entries}


def _split_trim(value: str) -> list[JSONValue]:
    return [trim(part) for part in value.split(",")]


def convert_risu_lorebook(obj: Mapping[str, JSONValue], *, where: str = "$") -> World:
    """``convertRisuLorebook`` (R85): a RisuAI lorebook export to a world object.

    Folder entries are kept as ordinary entries, exactly as SillyTavern does.

    Raises:
        Reject: when ``data`` is not an array of objects, or a ``key`` (or a truthy
            ``secondkey``) is not a string.
    """
    entries: dict[str, JSONValue] = {}
    problems = []
    for i, e in enumerate(_entries_list(obj, "data", where)):
        key, second = _get(e, "key"), _get(e, "secondkey")
        if not isinstance(key, str):
            problems.append(reject(f"{where}.data.{i}.key", "must be a string").problems[0])
            continue
        if truthy(second) and not isinstance(second, str):
            problems.append(reject(f"{where}.data.{i}.secondkey", "must be a string").problems[0])
            continue
        percent = _get(e, "activationPercent")
        fields: dict[str, JSONValue] = {
            "key": _split_trim(key),
            "keysecondary": _split_trim(second) if isinstance(second, str) and second else [],
            "comment": _get(e, "comment"),
            "content": _get(e, "content"),
            "constant": _get(e, "alwaysActive"),
            "selective": _get(e, "selective"),
            "order": _get(e, "insertorder"),
            "disable": False,
            "addMemo": True,
            "probability": coalesce(percent, 100),
            "useProbability": coalesce(percent, True),
        }
        entries[str(i)] = _plain(i, fields)
    if problems:
        raise Reject(problems)
    return {"entries": entries}


def _kobold_keys(value: JSONValue) -> list[JSONValue]:
    if isinstance(value, list):
        return [k for k in value if not isinstance(k, str) or trim(k)]
    if not isinstance(value, str):
        return []
    return [k for k in _split_trim(value) if k]


def convert_kobold_world_info(items: list[Any], *, where: str = "$.worldinfo") -> World:
    """KoboldAI story-save ``worldinfo`` to a world object (SillyTavern has no converter).

    Mapping (formats.md section 9): ``key``/``keysecondary`` split on commas, trimmed,
    empties dropped; ``selective``, ``constant``, ``comment``, ``content``; ``widisabled``
    disables; Kobold Lite ``keyanti`` becomes NOT_ANY secondary keys when there are no
    ``keysecondary``; ``probability`` strings become numbers. Position 0, order 100.

    Raises:
        Reject: when an item is not an object.
    """
    entries: dict[str, JSONValue] = {}
    for i, e in enumerate(items):
        if not isinstance(e, dict):
            raise reject(f"{where}.{i}", "entry must be an object")
        secondary = _kobold_keys(_get(e, "keysecondary"))
        anti = _kobold_keys(_get(e, "keyanti"))
        logic = 0
        selective = truthy(_get(e, "selective"))
        if not secondary and anti:
            secondary, logic, selective = anti, 2, True
        content = _get(e, "content")
        comment = _get(e, "comment")
        fields: dict[str, JSONValue] = {
            "key": _kobold_keys(_get(e, "key")),
            "keysecondary": secondary,
            "comment": comment if isinstance(comment, str) else "",
            "content": content if isinstance(content, str) else to_string(coalesce(content, "")),
            "constant": truthy(_get(e, "constant")),
            "selective": selective,
            "selectiveLogic": logic,
            "disable": truthy(_get(e, "widisabled")),
            "addMemo": isinstance(comment, str) and comment != "",
        }
        prob = _get(e, "probability")
        if isinstance(prob, str) and prob.strip().isdigit():
            fields["probability"] = int(prob.strip())
        elif isinstance(prob, (int, float)) and not isinstance(prob, bool):
            fields["probability"] = prob
        fields["displayIndex"] = i
        entries[str(i)] = new_entry(i, copy.deepcopy(fields))
    return {"entries": entries}
