"""Entry classes: the plan's rules applied once per distinct set of the values they read.

``build.build_plan`` asks ``Classes.of`` for the class of each plain entry's stored fields:
entries whose ``SIG_FIELDS`` hold equal values share every outcome the plan takes from those
fields (scan configuration, key-rule context, fixed kind, waiting checks). The outcomes are
computed by the rule functions themselves (``entry_rules``, ``slots``) on the first entry of
a class. Python's ``==`` makes ``True == 1 == 1.0`` (and ``False == 0``), which JavaScript's
strict equality does not; sharing is still sound because every rule computed from these
fields reads them only through truthiness, ``== true``, ``??`` and ``Number()``, which
agree on such values (the scan-settings memo relied on this before).
``Prepare`` memoises, within a plan, the facts of an entry's settings and each key's slot by
its text within the outcome of the entry-level key rules.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import repeat

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.engine import entry_rules
from worldinfo.engine.buffer import MATCH_FLAGS
from worldinfo.engine.fast.matcher import KeyIndex
from worldinfo.engine.fast.plan import EMPTY, Kind, Plan, Secondary
from worldinfo.engine.fast.slots import Gate, filtered, fixed_kind, key_slot, waits
from worldinfo.engine.fast.stored import EVERY, NOT_PLAIN, StoredView, is_plain
from worldinfo.engine.timed_effects import entry_key
from worldinfo.types import RawEntry, Settings

Config = tuple[float | None, tuple[bool, ...]]


@dataclass(frozen=True, slots=True)
class Facts:
    """What the plan reads from an entry's scan settings (``FACT_FIELDS``) itself; shared
    by every entry with the same values."""

    config: Config
    ignore_budget: bool
    delay: bool
    group: bool


FACT_FIELDS = ("scanDepth", *(f for f, _ in MATCH_FLAGS), "ignoreBudget", "delay", "group")
SIG_FIELDS = (
    *FACT_FIELDS,
    "caseSensitive",
    "matchWholeWords",
    "disable",
    "constant",
    "delayUntilRecursion",
    "excludeRecursion",
    "triggers",
    "characterFilter",
    "decorators",
)
"""The fields the class outcomes are computed from (``Classes._new``) by the rules as they
are written; a field the rules read besides joins them."""
_ABSENTS = repeat(object())
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


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class Class:
    """The outcomes shared by the entries of one class (``cid``: the scan configuration)."""

    cid: int
    delay: bool
    memo: dict[str, int] | None = None
    context: tuple[bool, bool] = (False, False)
    """``entry_rules.case_sensitive`` and ``whole_words``."""
    fixed: Kind | None = None
    waits: bool = False
    """``slots.waits`` or ``slots.filtered``: a ``GATED`` entry, whatever its keys."""
    leveled: bool = False
    """A truthy ``delayUntilRecursion`` (``gathering.delay_levels`` reads it)."""


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
        if sig is None:  # some field is missing: an ``_ABSENTS`` marker stands for it
            sig = tuple(map(entry.get, FACT_FIELDS, _ABSENTS))
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
        self, keys: JSONValue, entry: RawEntry, memo: dict[str, int] | None, cls: Class | None
    ) -> tuple[int, ...]:
        """``key_slot`` of each key; memoised for non-regex keys by text within a context
        (``cls``: the entry's class, whose context is known)."""
        if not isinstance(keys, list):
            return ()
        if memo is not None:
            try:
                return tuple([memo[k] for k in keys])
            except (KeyError, TypeError):  # a key seen first, or not a string
                pass
        context = cls.context if cls is not None else None
        out: list[int] = []
        for k in keys:
            slot = memo.get(k) if memo is not None and isinstance(k, str) else None
            if slot is None:
                slot = key_slot(k, entry, self.settings, self.needles, self.gate, context=context)
                if memo is not None and slot >= EMPTY and isinstance(k, str):
                    memo[k] = slot
            out.append(slot)
        return tuple(out)

    def secondary(
        self, entry: RawEntry, memo: dict[str, int] | None, cls: Class | None
    ) -> Secondary | None:
        """The entry's secondary keys that apply (R32) and their slots, with the slot memo."""
        sec = entry_rules.secondary_keys(entry)
        if sec is None:
            return None
        return Secondary(
            logic=entry_rules.selective_logic(entry), slots=self.slots(sec, entry, memo, cls)
        )


class Classes:
    """The classes of one plan's plain entries, and the configurations they use.

    The fields a class is keyed by start as ``SIG_FIELDS``; the rules are run on a
    ``StoredView`` that records what they read, and a field read outside the key fields
    joins them (``changed``: the entries seen so far must be classified again).
    """

    def __init__(self, prepare: Prepare, plan: Plan) -> None:
        self._prepare = prepare
        self._plan = plan
        self._by_sig: dict[object, Class] = {}
        self._loose: dict[tuple[Config, bool], Class] = {}
        self._configs: dict[Config, int] = {}
        self._fields: tuple[str, ...] = SIG_FIELDS
        self._getter: Callable[[Mapping[str, JSONValue]], tuple[JSONValue, ...]] | None = None
        self._missing: frozenset[str] = frozenset()
        self._shaped = False
        self._world = False
        self.sharing = True
        """``False`` once a rule read every field or one the stored fields lack: no entry
        is plain then."""
        self.changed = False
        """The key fields grew since this was last reset."""

    def of(self, data: Mapping[str, JSONValue], world: str) -> Class | None:
        """The class of a trusted entry's stored fields; ``None`` when the entry is not
        plain (its object must be built to apply the rules to)."""
        content = data.get("content")
        if type(content) is not str or content.startswith("@@") or not self.sharing:
            return None
        if not self._shaped:
            self._shape(data)
        getter = self._getter
        vals: tuple[JSONValue, ...] | None = None
        if getter is not None:
            try:
                vals = getter(data)
            except KeyError:
                vals = None
        if vals is None or not data.keys().isdisjoint(self._missing):
            if not is_plain(data):
                return None
            vals = tuple(map(data.get, self._fields, _ABSENTS))
            sig: tuple[object, ...] = (False, vals, world if self._world else None)
        else:
            sig = (True, vals, world if self._world else None)
        try:
            got = self._by_sig.get(sig)
        except TypeError:  # a list or object in a field: keyed by its text
            sig = (sig[0], tuple(map(_frozen, vals)), sig[2])
            got = self._by_sig.get(sig)
        if got is None:
            got = self._by_sig[sig] = self._new(data, world)
        return got

    def loose(self, known: Facts) -> Class:
        """The class of an entry prepared on its own: its configuration and ``delay``."""
        key = (known.config, known.delay)
        got = self._loose.get(key)
        if got is None:
            got = self._loose[key] = Class(cid=self._cid(known), delay=known.delay)
        plan = self._plan
        plan.any_ignore_budget = plan.any_ignore_budget or known.ignore_budget
        plan.any_group = plan.any_group or known.group
        return got

    def _shape(self, data: Mapping[str, JSONValue]) -> None:
        """Read the fields of the first plain entry: the others most likely have the same."""
        self._shaped = True
        fields = [f for f in self._fields if f not in NOT_PLAIN]
        present = [f for f in fields if f in data]
        self._getter = None
        if len(present) == len(fields) and len(present) >= 2:
            self._getter = operator.itemgetter(*present)
            self._missing = frozenset(NOT_PLAIN)
        elif len(present) >= 2:
            self._getter = operator.itemgetter(*present)
            self._missing = frozenset((*(f for f in fields if f not in present), *NOT_PLAIN))

    def _cid(self, known: Facts) -> int:
        plan = self._plan
        cid = self._configs.setdefault(known.config, len(self._configs))
        if cid == len(plan.by_needle):
            plan.by_needle.append({})
            plan.configs.append(known.config)
        plan.any_ignore_budget = plan.any_ignore_budget or known.ignore_budget
        plan.any_group = plan.any_group or known.group
        return cid

    def _new(self, data: Mapping[str, JSONValue], world: str) -> Class:
        """Apply the rules to the first entry of a class, through a recording view."""
        read: set[str] = set()
        entry = StoredView(data, world, read)
        prepare = self._prepare
        known = facts(entry)
        settings = prepare.settings
        context = (
            entry_rules.case_sensitive(entry, settings),
            entry_rules.whole_words(entry, settings),
        )
        cls = Class(
            cid=self._cid(known),
            delay=known.delay,
            memo=prepare.context(context),
            context=context,
            fixed=fixed_kind(entry),
            waits=waits(entry) or filtered(entry),
            leveled=_js.truthy(entry_rules.delay_level(entry)),
        )
        probe: set[str] = set()
        secondary = StoredView(data, world, probe)  # read per entry from the stored fields
        entry_rules.secondary_keys(secondary)
        entry_rules.selective_logic(secondary)
        if EVERY in read or not probe.isdisjoint((EVERY, *NOT_PLAIN)):
            self.sharing = False
            self.changed = True
        new = [f for f in sorted(read) if f not in self._fields]
        if new:
            self._fields = (*self._fields, *new)
            self._world = "world" in self._fields
            self._by_sig.clear()
            self._shaped = False
            self.changed = True
        return cls


def _frozen(value: JSONValue) -> object:
    """A hashable stand-in for a field value: lists and objects by their text."""
    return (type(value), repr(value)) if isinstance(value, (list, dict)) else value
