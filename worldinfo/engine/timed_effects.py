"""Sticky, cooldown and delay (R58-R66) over an explicit ``timedWorldInfo`` state object.

The state is SillyTavern's ``chat_metadata.timedWorldInfo``:
``{"sticky": {key: record}, "cooldown": {key: record}}`` with
``record = {hash, start, end, protected}`` and ``key = "<world>.<uid>"``. Records follow
entries by hash, so any edit of an entry detaches its running effects.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo._record import field, record
from worldinfo.types import entry_key as entry_key  # noqa: PLC0414 (re-export; defined in types)

TYPES = ("sticky", "cooldown")


def may_record(entry: Mapping[str, JSONValue]) -> bool:
    """Does activating ``entry`` write a record (``write``: a truthy sticky or cooldown)?"""
    return any(_js.truthy(entry.get(t, UNDEFINED)) for t in TYPES)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _deep_copy(state: dict[str, JSONValue]) -> dict[str, JSONValue]:
    """``copy.deepcopy(state)``; built directly when ``state`` maps names to dicts of
    records that hold only immutable scalars (the shape the engine writes)."""
    if type(state) is not dict:
        return copy.deepcopy(state)
    out: dict[str, JSONValue] = {}
    for name, records in state.items():
        if type(records) is not dict:
            return copy.deepcopy(state)
        copied: dict[str, JSONValue] = {}
        for key, value in records.items():
            if type(value) is not dict or not _SCALARS.issuperset(map(type, value.values())):
                return copy.deepcopy(state)
            copied[key] = dict(value)
        out[name] = copied
    return out


def normalise(state: JSONValue) -> dict[str, JSONValue]:
    """Return a normalised deep copy of ``timedWorldInfo`` (done on every scan, R60)."""
    out: dict[str, JSONValue] = _deep_copy(state) if isinstance(state, dict) else {}
    for t in TYPES:
        records = out.get(t)
        if not isinstance(records, (dict, list)):
            out[t] = {}
            continue
        if isinstance(records, list):
            records = {str(i): v for i, v in enumerate(records)}
        elif set(map(type, records.values())) <= {dict}:  # every one kept: a copy already
            continue
        out[t] = {k: v for k, v in records.items() if _js.truthy(v) and isinstance(v, (dict, list))}
    return out


@record(frozen=False, kw_only=False)
class TimedEffects:
    """``WorldInfoTimedEffects``: check phase, activity tests and writing."""

    state: dict[str, JSONValue]
    chat_length: int
    entries: Sequence[dict[str, JSONValue]]
    dry_run: bool = False
    active: dict[str, list[JSONValue]] = field(default_factory=dict)
    find_hash: Callable[[str, str], int | None] | None = None
    """Prepared lookup: ``(record key, String(hash))`` -> position of the first entry with
    that hash (the key says where to look first)."""
    delay_positions: Sequence[int] | None = None
    """Prepared lookup: positions of the entries with a truthy ``delay``, ascending."""
    _exact: dict[str, tuple[int, frozenset[int] | None]] = field(default_factory=dict)
    """Per type: (buffer length, ``_js.safe_integer_set`` of its values)."""

    def check(self) -> None:
        """Fill the sticky/cooldown/delay buffers from the records and the entries (R62-R64)."""
        self.active = {"sticky": [], "cooldown": [], "delay": []}
        if not self.dry_run:
            for t in TYPES:
                self._check_type(t)
        n = self.chat_length
        entries = self.entries
        with_delay = (
            entries if self.delay_positions is None else [entries[p] for p in self.delay_positions]
        )
        for e in with_delay:
            delay = e.get("delay", UNDEFINED)
            if _js.truthy(delay) and _js.lt(n, delay):
                self.active["delay"].append(e.get("hash", UNDEFINED))

    def _find(self, h: JSONValue, key: str) -> dict[str, JSONValue] | None:
        target = _js.to_string(h)
        if self.find_hash is not None:
            pos = self.find_hash(key, target)
            return None if pos is None else self.entries[pos]
        for e in self.entries:
            if _js.to_string(e.get("hash", UNDEFINED)) == target:
                return e
        return None

    def _check_type(self, t: str) -> None:
        records = self.state[t]
        assert isinstance(records, dict)
        n = self.chat_length
        active = self.active[t]
        for key in _js.js_key_order(list(records)):
            record = records.get(key)
            if not isinstance(record, dict):
                continue
            entry = self._find(record.get("hash", UNDEFINED), key)
            end = _js.to_number(record.get("end", UNDEFINED))
            if n <= _js.to_number(record.get("start", UNDEFINED)) and not _js.truthy(
                record.get("protected", UNDEFINED)
            ):
                del records[key]
                continue
            if entry is None:
                if n >= end:
                    del records[key]
                continue
            if not _js.truthy(entry.get(t, UNDEFINED)):
                del records[key]
                continue
            if n >= end:
                del records[key]
                if t == "sticky":
                    self._sticky_ended(entry)
                continue
            active.append(entry.get("hash", UNDEFINED))

    def _sticky_ended(self, entry: dict[str, JSONValue]) -> None:
        cooldown = entry.get("cooldown", UNDEFINED)
        if not _js.truthy(cooldown):
            return
        n = self.chat_length
        records = self.state["cooldown"]
        assert isinstance(records, dict)
        records[entry_key(entry)] = {
            "hash": entry.get("hash", UNDEFINED),
            "start": n,
            "end": _js.number_value(n + _js.to_number(cooldown)),
            "protected": True,
        }
        self.active["cooldown"].append(entry.get("hash", UNDEFINED))

    def is_active(self, t: str, entry: Mapping[str, JSONValue]) -> bool:
        """``isEffectActive``: some buffered entry has exactly this entry's hash."""
        values = self.active.get(t)
        if not values:
            return False
        h = entry.get("hash", UNDEFINED)
        if _js.is_safe_integer(h):
            exact = self._exact.get(t)
            if exact is None or exact[0] != len(values):
                exact = self._exact[t] = (len(values), _js.safe_integer_set(values))
            if exact[1] is not None:  # every value a safe integer: ``===`` is membership
                return h in exact[1]
        return any(_js.strict_eq(x, h) for x in values)

    def write(self, activated: Sequence[Mapping[str, JSONValue]]) -> None:
        """Record new sticky/cooldown effects of the activated entries (R65)."""
        if self.dry_run:
            return
        n = self.chat_length
        for entry in activated:
            key = None
            for t in TYPES:
                value = entry.get(t, UNDEFINED)
                if not _js.truthy(value):
                    continue
                records = self.state[t]
                assert isinstance(records, dict)
                if key is None:
                    key = entry_key(entry)
                if key in records:
                    continue
                records[key] = {
                    "hash": entry.get("hash", UNDEFINED),
                    "start": n,
                    "end": _js.number_value(n + _js.to_number(value)),
                    "protected": False,
                }
