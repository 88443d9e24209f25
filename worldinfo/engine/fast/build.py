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

from worldinfo import _js
from worldinfo._js import UNDEFINED
from worldinfo.engine.fast.classes import Class, Classes, Prepare
from worldinfo.engine.fast.matcher import KeyIndex
from worldinfo.engine.fast.plan import REGEX, Kind, LazyEntries, Origin, Plan, Secondary
from worldinfo.engine.fast.slots import Gate, kind_from, kind_of
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
    for pos, (book_entry, world, _) in enumerate(origins):
        data = book_entry.data
        cls: Class | None = None
        if not untrusted or id(book_entry) not in untrusted:
            cls = classes.of(data)
        if cls is not None:
            key = f"{world}.{_js.to_string(data.get('uid', UNDEFINED))}"
            if policy_keys and key in policy_keys:  # shares its key with an untrusted entry
                cls = None
        if cls is not None:
            stand: RawEntry = data  # type: ignore[assignment]  # read only, like the object
            memo = cls.memo
            primary = prepare.slots(data.get("key", UNDEFINED), stand, memo, cls)
            secondary = None
            if data.get("keysecondary"):  # a falsy value is never a list that applies (R32)
                secondary = prepare.secondary(stand, memo, cls)
            gated = cls.waits or (
                ("triggers" in data or "characterFilter" in data) and cls.filtered(data)
            )
            kind = kind_from(primary, secondary, fixed=cls.fixed, gated=gated)
            if cls.leveled:
                leveled.append(stand)
        else:
            stand = entries.make(pos)
            known = prepare.facts(stand)
            memo = prepare.memo(stand)
            key = entry_key(stand)
            primary = prepare.slots(stand.get("key", UNDEFINED), stand, memo, None)
            secondary = prepare.secondary(stand, memo, None)
            kind = kind_of(stand, primary, secondary)
            cls = classes.loose(known)
            leveled.append(stand)
        _record(plan, pos, cls, kind=kind, primary=primary, secondary=secondary)
        plan.keys.append(key)
        if "hash" in stand:  # a stored ``hash`` field would read as the entry's own hash
            plan.ensure_hash(pos)
    plan.levels = delay_levels(leveled)
    needles.freeze()
    return plan


def _record(
    plan: Plan,
    pos: int,
    cls: Class,
    *,
    kind: Kind,
    primary: tuple[int, ...],
    secondary: Secondary | None,
) -> None:
    """Append the facts of the entry at ``pos`` to the plan."""
    cid = cls.cid
    plan.kind.append(kind)
    plan.plain.append(kind == Kind.PLAIN)
    plan.config.append(cid)
    plan.primary.append(primary)
    plan.secondary.append(secondary)
    if plan.regex_needles and (
        (primary and min(primary) <= REGEX)
        or (secondary is not None and secondary.slots and min(secondary.slots) <= REGEX)
    ):
        plan.regex_positions.add(pos)
    if kind == Kind.PLAIN or kind == Kind.GATED:
        table = plan.by_needle[cid]
        for slot in primary if len(primary) == 1 else dict.fromkeys(primary):
            if slot >= 0:
                ids: tuple[int, ...] = (slot,)
            elif slot <= REGEX:
                ids = plan.regex_needles[REGEX - slot]
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
    if cls.delay:
        plan.delay_positions.append(pos)
