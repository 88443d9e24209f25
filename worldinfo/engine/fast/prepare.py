"""Preparing entries one by one within a plan: the memoised facts of scan settings and key
slots (``Prepare``), for ``build.build_plan`` and ``classes.Classes``."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from itertools import repeat

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo._record import record
from worldinfo.engine import entry_rules
from worldinfo.engine.buffer import MATCH_FLAGS
from worldinfo.engine.fast.matcher import KeyIndex
from worldinfo.engine.fast.plan import EMPTY, Secondary
from worldinfo.engine.fast.slots import Gate, key_slot
from worldinfo.engine.timed_effects import entry_key
from worldinfo.types import RawEntry, Settings

Config = tuple[float | None, tuple[bool, ...]]


@record(kw_only=False)
class Facts:
    """What the plan reads from an entry's scan settings (``FACT_FIELDS``) itself; shared
    by every entry with the same values."""

    config: Config
    ignore_budget: bool
    delay: bool
    group: bool


FACT_FIELDS = ("scanDepth", *(f for f, _ in MATCH_FLAGS), "ignoreBudget", "delay", "group")
FACT_FIELDS = ("scanDepth", *(f for f, _ in MATCH_FLAGS), "ignoreBudget", "delay", "group")
ABSENTS = repeat(object())
"""One marker standing for every missing field."""
_FACT_GETTER = operator.itemgetter(*FACT_FIELDS)


def facts(entry: Mapping[str, JSONValue]) -> Facts:
    """The ``Facts`` of an entry (reads only ``FACT_FIELDS``)."""
    sd = entry.get("scanDepth", UNDEFINED)
    return Facts(
        config=(
            None if _js.nullish(sd) else _js.to_number(sd),
            tuple(_js.truthy(entry.get(f, UNDEFINED)) for f, _ in MATCH_FLAGS),
        ),
        ignore_budget=_js.truthy(entry.get("ignoreBudget", UNDEFINED)),
        delay=_js.truthy(entry.get("delay", UNDEFINED)),
        group=_js.truthy(entry.get("group", UNDEFINED)),
    )


class Prepare:
    """Per-plan memos: ``facts`` by the values of ``FACT_FIELDS``, and key slots by key text
    within the outcome of the entry-level key rules (``case_sensitive``, ``whole_words``):
    books repeat the same settings and keys across thousands of entries."""

    def __init__(self, settings: Settings, needles: KeyIndex, gate: Gate) -> None:
        self.settings = settings
        self.needles = needles
        self.gate = gate
        self._facts: dict[tuple[object, ...], Facts] = {}
        self._slots: dict[tuple[bool, bool], dict[str, int]] = {}
        self._all_fields = True

    def facts(self, entry: RawEntry) -> Facts:
        """The entry's facts."""
        sig: tuple[object, ...] | None = None
        if self._all_fields:  # books are uniform: stop trying after the first miss
            try:
                sig = _FACT_GETTER(entry)
            except KeyError:
                self._all_fields = False
        if sig is None:  # some field is missing: an ``ABSENTS`` marker stands for it
            sig = tuple(map(entry.get, FACT_FIELDS, ABSENTS))
        try:
            got = self._facts.get(sig)
        except TypeError:  # a list or object in a field: no sharing
            return facts(entry)
        if got is None:
            got = self._facts[sig] = facts(entry)
        return got

    def context(self, context: tuple[bool, bool]) -> dict[str, int]:
        """The slot memo of a key-rule outcome."""
        got = self._slots.get(context)
        if got is None:
            got = self._slots[context] = {}
        return got

    def memo(self, entry: RawEntry) -> dict[str, int] | None:
        """The slot memo of the entry's key-rule outcome (``None``: an untrusted entry,
        whose keys the trust policy may refuse one by one)."""
        if self.gate.untrusted and entry_key(entry) in self.gate.untrusted:
            return None
        rules = entry_rules
        return self.context(
            (rules.case_sensitive(entry, self.settings), rules.whole_words(entry, self.settings))
        )

    def slots(
        self,
        keys: JSONValue,
        entry: RawEntry,
        memo: dict[str, int] | None,
        context: tuple[bool, bool] | None,
    ) -> tuple[int, ...]:
        """``key_slot`` of each key; memoised for non-regex keys by text within a context
        (``context``: the entry's key-rule outcome when known, ``key_slot``)."""
        if not isinstance(keys, list):
            return ()
        if memo is not None:
            try:
                return tuple([memo[k] for k in keys])
            except (KeyError, TypeError):  # a key seen first, or not a string
                pass
        out: list[int] = []
        for k in keys:
            slot = memo.get(k) if memo is not None and isinstance(k, str) else None
            if slot is None:
                slot = key_slot(k, entry, self.settings, self.needles, self.gate, context=context)
                if memo is not None and slot >= EMPTY and isinstance(k, str):
                    memo[k] = slot
            out.append(slot)
        return tuple(out)

    def secondary(self, entry: RawEntry, memo: dict[str, int] | None) -> Secondary | None:
        """The entry's secondary keys that apply (R32) and their slots, with the slot memo."""
        sec = entry_rules.secondary_keys(entry)
        if sec is None:
            return None
        return Secondary(
            logic=entry_rules.selective_logic(entry), slots=self.slots(sec, entry, memo, None)
        )
