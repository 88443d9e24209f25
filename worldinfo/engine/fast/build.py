"""Building a plan: the static facts of sorted, decorated entries (``build_plan``).

A plan is built from the entries' origins without building their entry objects
(``LazyEntries`` builds each when a scan first reads it). For a plain entry (trusted, with
a string ``content`` that carries no decorator, and neither a stored ``world`` nor
``decorators`` field) the stored ``Entry.data`` reads exactly like its entry object for
every rule the plan applies, so the rules are applied to it directly. Books repeat the same
scan settings across thousands of entries: the rules are applied once per distinct set of
values of the fields they read (``classes.Classes``), and each key's slot is memoised by its
text within the outcome of the entry-level key rules. Any other entry is built now and
prepared on its own, as before (``_Prepare``).
"""

from __future__ import annotations

from collections.abc import Mapping

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.engine import entry_rules
from worldinfo.engine.fast.classes import Class, Classes
from worldinfo.engine.fast.matcher import KeyIndex
from worldinfo.engine.fast.plan import REGEX, Kind, LazyEntries, Origin, Plan, Secondary
from worldinfo.engine.fast.prepare import Prepare
from worldinfo.engine.fast.slots import Gate, kind_from, kind_of, learn_slots
from worldinfo.engine.gathering import delay_levels
from worldinfo.engine.timed_effects import entry_key
from worldinfo.types import RawEntry, Settings


def build_plan(
    origins: list[Origin],
    settings: Settings,
    *,
    gate: Gate | None = None,
    untrusted: frozenset[int] = frozenset(),
) -> Plan:
    """Compute the static facts of the sorted entries with these ``origins``.

    Args:
        origins: each position's book entry, book name and hash memo.
        settings: the scan settings.
        gate: the trust policy, untrusted keys and regex clock the keys are prepared under.
        untrusted: ``id`` of the untrusted book entries (``trust.is_untrusted``).
    """
    trust = gate or Gate()
    needles = KeyIndex()
    entries = LazyEntries(origins, trust=trust.policy)
    plan = Plan(
        entries=entries,
        books=(),
        index=entries.ids,
        keys=[],
        kind=[],
        config=[],
        configs=[],
        primary=[],
        secondary=[],
        levels=[],
        needles=needles,
        origins=origins,
        hashed=bytearray(len(origins)),
        indexed=bytearray(len(origins)),
        trust=trust.policy,
        untrusted=trust.untrusted,
        regex_needles=trust.regex_needles,
        regex_keys=trust.regex_keys,
    )
    prepare = Prepare(settings, needles, trust)
    classes = Classes(prepare, plan)
    leveled: list[RawEntry] = []
    policy_keys = trust.untrusted
    worlds = [o[1] for o in origins]
    datas = [o[0].data for o in origins]
    keys = list(
        map("{}.{}".format, worlds, _js.to_strings([d.get("uid", UNDEFINED) for d in datas]))
    )
    while True:  # again while the rules read a field the classes were not keyed by
        classes.changed = False
        found = list(map(classes.of, datas, worlds))
        if untrusted:
            found = [
                None if id(o[0]) in untrusted else c for o, c in zip(origins, found, strict=True)
            ]
        if not classes.changed:
            break
    entries.trusted = bytearray(c is not None for c in found)
    if policy_keys:  # an entry that shares its key with an untrusted one is not plain
        found = [None if k in policy_keys else c for c, k in zip(found, keys, strict=True)]
    _learn(found, datas, prepare)
    slots = prepare.slots
    secondary_keys, selective_logic = entry_rules.secondary_keys, entry_rules.selective_logic
    kinds: list[Kind] = []
    cids: list[int] = []
    primaries: list[tuple[int, ...]] = []
    secondaries: list[Secondary | None] = []
    delays: list[bool] = []
    for pos, cls in enumerate(found):
        if cls is not None:
            data = datas[pos]
            stand: RawEntry = data  # type: ignore[assignment]  # read only, like the object
            memo = cls.memo
            listed = data.get("key", UNDEFINED)
            if memo is not None and type(listed) is list:
                try:  # every key's slot is in the memo (``_learn``) but a regex key's
                    primary = tuple([memo[k] for k in listed])
                except (KeyError, TypeError):
                    primary = slots(listed, stand, memo, cls.context)
            else:
                primary = slots(listed, stand, memo, cls.context)
            sec = secondary_keys(stand)
            secondary = None
            if sec is not None:
                secondary = Secondary(
                    logic=selective_logic(stand), slots=slots(sec, stand, memo, cls.context)
                )
            kind = kind_from(primary, secondary, fixed=cls.fixed, gated=cls.waits)
            if cls.leveled:
                leveled.append(stand)
        else:
            stand = entries.make(pos)
            known = prepare.facts(stand)
            memo = prepare.memo(stand)
            keys[pos] = entry_key(stand)
            primary = slots(stand.get("key", UNDEFINED), stand, memo, None)
            secondary = prepare.secondary(stand, memo)
            kind = kind_of(stand, primary, secondary)
            cls = classes.loose(known)
            leveled.append(stand)
        kinds.append(kind)
        cids.append(cls.cid)
        primaries.append(primary)
        secondaries.append(secondary)
        delays.append(cls.delay)
        if "hash" in stand:  # a stored ``hash`` field would read as the entry's own hash
            plan.ensure_hash(pos)
    _record(plan, kinds=kinds, cids=cids, primaries=primaries, secondaries=secondaries)
    plan.delay_positions = [pos for pos, d in enumerate(delays) if d]
    plan.keys = keys
    plan.levels = delay_levels(leveled)
    needles.freeze()
    return plan


def _learn(
    found: list[Class | None], datas: list[Mapping[str, JSONValue]], prepare: Prepare
) -> None:
    """Learn the slots of the plain entries' keys in bulk, per key-rule context."""
    kinds = {id(c.memo): c for c in set(found) if c is not None and c.memo is not None}
    for mid, cls in kinds.items():
        if len(kinds) == 1:
            chosen = (
                datas if None not in found else [d for c, d in zip(found, datas, strict=True) if c]
            )
        else:
            chosen = [d for c, d in zip(found, datas, strict=True) if c and id(c.memo) == mid]
        keys: list[JSONValue] = [
            k
            for d in chosen
            for f in ("key", "keysecondary")
            if isinstance(v := d.get(f), list)
            for k in v
        ]
        assert cls.memo is not None
        learn_slots(keys, cls.memo, context=cls.context, needles=prepare.needles)


def _record(
    plan: Plan,
    *,
    kinds: list[Kind],
    cids: list[int],
    primaries: list[tuple[int, ...]],
    secondaries: list[Secondary | None],
) -> None:
    """Store each position's kind, configuration and slots, and index the positions by
    needle (per configuration) and by kind."""
    plan.kind = kinds
    plan.plain = [k is Kind.PLAIN for k in kinds]
    plan.config = cids
    plan.primary = primaries
    plan.secondary = secondaries
    plan.always_visit = [pos for pos, k in enumerate(kinds) if k is Kind.ALWAYS]
    regex = plan.regex_needles
    if regex:
        for pos, (primary, sec) in enumerate(zip(primaries, secondaries, strict=True)):
            if (primary and min(primary) <= REGEX) or (
                sec is not None and sec.slots and min(sec.slots) <= REGEX
            ):
                plan.regex_positions.add(pos)
    by_needle = plan.by_needle
    plain, gated = Kind.PLAIN, Kind.GATED
    for pos, kind in enumerate(kinds):
        if kind is not plain and kind is not gated:
            continue
        table = by_needle[cids[pos]]
        for slot in primaries[pos]:
            if slot >= 0:
                got = table.get(slot)
                if got is None:
                    table[slot] = [pos]
                elif got[-1] != pos:  # a key repeated in the entry
                    got.append(pos)
            elif slot <= REGEX:
                for nid in regex[REGEX - slot]:
                    got = table.get(nid)
                    if got is None:
                        table[nid] = [pos]
                    elif got[-1] != pos:
                        got.append(pos)
