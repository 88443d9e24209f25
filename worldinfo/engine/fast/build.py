"""Building a plan: the static facts of sorted, decorated entries (``build_plan``).

Books repeat the same scan settings and keys across thousands of entries, so ``_Prepare``
memoises the facts of each entry's settings and the slot of each key within a plan.
"""

from __future__ import annotations

import operator

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo._record import record
from worldinfo.engine import entry_rules
from worldinfo.engine.buffer import MATCH_FLAGS
from worldinfo.engine.fast.matcher import KeyIndex
from worldinfo.engine.fast.plan import EMPTY, REGEX, Kind, Origin, Plan, Secondary
from worldinfo.engine.fast.slots import Gate, key_slot, kind_of
from worldinfo.engine.gathering import delay_levels
from worldinfo.engine.timed_effects import entry_key
from worldinfo.types import RawEntry, Settings


@record(kw_only=False)
class Facts:
    """What the plan reads from an entry's scan settings (``FACT_FIELDS``) itself; shared
    by every entry with the same values."""

    config: tuple[float | None, tuple[bool, ...]]
    ignore_budget: bool
    delay: bool
    group: bool


FACT_FIELDS = ("scanDepth", *(f for f, _ in MATCH_FLAGS), "ignoreBudget", "delay", "group")
_ABSENTS = (object(),) * len(FACT_FIELDS)
_FACT_GETTER = operator.itemgetter(*FACT_FIELDS)


def facts(entry: RawEntry) -> Facts:
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


class _Prepare:
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

    def memo(self, entry: RawEntry) -> dict[str, int] | None:
        """The slot memo of the entry's key-rule outcome (``None``: an untrusted entry,
        whose keys the trust policy may refuse one by one)."""
        if self.gate.untrusted and entry_key(entry) in self.gate.untrusted:
            return None
        rules = entry_rules
        context = (
            rules.case_sensitive(entry, self.settings),
            rules.whole_words(entry, self.settings),
        )
        got = self._slots.get(context)
        if got is None:
            got = self._slots[context] = {}
        return got

    def slots(
        self, keys: JSONValue, entry: RawEntry, memo: dict[str, int] | None
    ) -> tuple[int, ...]:
        """``key_slot`` of each key; memoised for non-regex keys by text within a context."""
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
                slot = key_slot(k, entry, self.settings, self.needles, self.gate)
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
            logic=entry_rules.selective_logic(entry), slots=self.slots(sec, entry, memo)
        )


def build_plan(
    entries: list[RawEntry],
    settings: Settings,
    origins: list[Origin],
    *,
    gate: Gate | None = None,
) -> Plan:
    """Compute the static facts of sorted, decorated entries (each a distinct object)."""
    trust = gate or Gate()
    needles = KeyIndex()
    configs: dict[tuple[float | None, tuple[bool, ...]], int] = {}
    plan = Plan(
        entries=tuple(entries),
        books=(),
        index={id(e): i for i, e in enumerate(entries)},
        keys=[entry_key(e) for e in entries],
        kind=[],
        config=[],
        configs=[],
        primary=[],
        secondary=[],
        levels=delay_levels(entries),
        needles=needles,
        origins=origins,
        hashed=bytearray(len(entries)),
        indexed=bytearray(len(entries)),
        trust=trust.policy,
        untrusted=trust.untrusted,
        regex_needles=trust.regex_needles,
        regex_keys=trust.regex_keys,
    )
    prepare = _Prepare(settings, needles, trust)
    by_needle = plan.by_needle
    for pos, e in enumerate(entries):
        known = prepare.facts(e)
        memo = prepare.memo(e)
        primary = prepare.slots(e.get("key", UNDEFINED), e, memo)
        secondary = prepare.secondary(e, memo)
        kind = kind_of(e, primary, secondary)
        cid = configs.setdefault(known.config, len(configs))
        if cid == len(by_needle):
            by_needle.append({})
            plan.configs.append(known.config)
        plan.kind.append(kind)
        plan.plain.append(kind == Kind.PLAIN)
        plan.config.append(cid)
        plan.primary.append(primary)
        plan.secondary.append(secondary)
        if any(s <= REGEX for s in primary) or (
            secondary is not None and any(s <= REGEX for s in secondary.slots)
        ):
            plan.regex_positions.add(pos)
        if kind == Kind.PLAIN or kind == Kind.GATED:
            table = by_needle[cid]
            for slot in primary if len(primary) == 1 else dict.fromkeys(primary):
                if slot >= 0:
                    ids: tuple[int, ...] = (slot,)
                elif slot <= REGEX:
                    ids = trust.regex_needles[REGEX - slot]
                else:
                    continue
                for nid in ids:
                    got = table.get(nid)
                    if got is None:
                        table[nid] = [pos]
                    else:
                        got.append(pos)
        elif kind == Kind.ALWAYS:
            plan.always_visit.append(pos)
        if "hash" in e:  # a stored ``hash`` field would read as the entry's own hash
            plan.ensure_hash(pos)
        if known.delay:
            plan.delay_positions.append(pos)
        plan.any_ignore_budget = plan.any_ignore_budget or known.ignore_budget
        plan.any_group = plan.any_group or known.group
    needles.freeze()
    return plan
