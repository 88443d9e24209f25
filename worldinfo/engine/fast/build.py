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

from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from operator import attrgetter, is_, is_not

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.engine.fast.classes import SIG_FIELDS, Class, Classes
from worldinfo.engine.fast.columns import Columns
from worldinfo.engine.fast.matcher import KeyIndex
from worldinfo.engine.fast.origins import Origins
from worldinfo.engine.fast.plan import (
    EMPTY,
    REGEX,
    UNKNOWN,
    Kind,
    LazyEntries,
    Plan,
    Secondary,
)
from worldinfo.engine.fast.prepare import Prepare
from worldinfo.engine.fast.rows import plain_rows
from worldinfo.engine.fast.slots import Gate, kind_of, learn_slots
from worldinfo.engine.fast.stored import NOT_PLAIN
from worldinfo.engine.gathering import delay_levels
from worldinfo.engine.timed_effects import entry_key
from worldinfo.types import Settings

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import cast
else:
    from worldinfo._lazy import cast

_CID = attrgetter("cid")


def build_plan(
    origins: Origins,
    settings: Settings,
    *,
    gate: Gate | None = None,
    untrusted: frozenset[int] = frozenset(),
    stored: tuple[Origins, list[int]] | None = None,
) -> Plan:
    """Compute the static facts of the sorted entries with these ``origins``.

    Args:
        origins: each position's book entry, book name and hash memo cell.
        settings: the scan settings.
        gate: the trust policy, untrusted keys and regex clock the keys are prepared under.
        untrusted: ``id`` of the untrusted book entries (``trust.is_untrusted``).
        stored: the origins in the order they were loaded, and each position's index
            there (``origins.entries[i] is stored[0].entries[stored[1][i]]``): passes read them in that
            order (``Columns``).
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
    policy_keys = trust.untrusted
    worlds = origins.worlds
    if stored is None:
        datas = [e.data for e in origins.entries]  # (a slot read the interpreter specialises)
        columns = Columns(datas)
    else:  # read in load order, then put in position order (``Columns``)
        loaded, perm = [e.data for e in stored[0].entries], stored[1]
        datas = list(map(loaded.__getitem__, perm))
        columns = Columns(datas, stored=loaded, perm=perm)
    columns.rule_out(("hash", *NOT_PLAIN, *SIG_FIELDS))  # fields most books lack
    keys, plan.key_ids = _entry_keys(worlds, columns)
    while True:  # again while the rules read a field the classes were not keyed by
        classes.changed = False
        found = classes.all_of(columns, worlds)
        if not classes.changed:
            break
    if untrusted:
        ids = map(id, origins.entries)
        found = [None if i in untrusted else c for i, c in zip(ids, found, strict=True)]
    one = _one(found)  # the class of every entry (tested by identity), if one is
    if one is None:
        entries.trusted = bytearray(map(is_not, found, repeat(None)))
    else:
        entries.trusted = bytearray(b"\x01") * len(found)
    if policy_keys:  # an entry that shares its key with an untrusted one is not plain
        found = [None if k in policy_keys else c for c, k in zip(found, keys, strict=True)]
        one = _one(found)
    _learn(found, columns, prepare, one=one)
    primaries, secondaries, kinds = plain_rows(found, columns, prepare)
    loose = (
        [pos for pos, c in enumerate(found) if c is None] if one is None and None in found else []
    )
    stands: list[Mapping[str, JSONValue]] = datas
    if loose:
        stands = list(datas)
    for pos in loose:  # prepared on its own, from its entry object
        stand = entries.make(pos)
        stands[pos] = stand
        known = prepare.facts(stand)
        memo = prepare.memo(stand)
        keys[pos] = entry_key(stand)
        primaries[pos] = prepare.slots(stand.get("key", UNDEFINED), stand, memo, None)
        secondaries[pos] = prepare.secondary(stand, memo)
        kinds[pos] = kind_of(stand, primaries[pos], secondaries[pos])
        found[pos] = classes.loose(known)
    classed = cast("list[Class]", found)
    distinct = set(classed) if one is None else {one}
    leveled: list[Mapping[str, JSONValue]] = []
    if loose or any(c.leveled for c in distinct):
        out = set(loose)
        leveled = [stands[p] for p, c in enumerate(classed) if c.leveled or p in out]
    if columns.held("hash"):  # would read as the entry's own hash
        for pos in [p for p, d in enumerate(datas) if "hash" in d]:
            plan.ensure_hash(pos)
    cids = list(map(_CID, classed)) if one is None else [one.cid] * len(classed)
    _record(plan, kinds=kinds, cids=cids, primaries=primaries, secondaries=secondaries)
    if any(c.delay for c in distinct):
        plan.delay_positions = [pos for pos, c in enumerate(classed) if c.delay]
    plan.keys = keys
    plan.levels = delay_levels(leveled)
    needles.freeze()
    return plan


def _one(found: list[Class | None]) -> Class | None:
    """The class at every position, if one is (``None``: not known to be)."""
    first = found[0] if found else None
    return first if first is not None and found.count(first) == len(found) else None


def _entry_keys(worlds: list[str], columns: Columns) -> tuple[list[str], list[int] | None]:
    """``entry_key`` (``"world.uid"``) of each plain entry, from its book name and ``uid``;
    and the uids when the book is one and they are safe integers (``Plan.key_ids``)."""
    if worlds and worlds.count(worlds[0]) == len(worlds):  # one book: one prefix, any order
        uids = list(columns.get("uid", loaded=True))
        ints = _js.safe_integers(uids)
        keys = columns.permute(_js.to_strings(uids, prefix=f"{worlds[0]}.", ints=ints))
        return keys, uids if ints else None
    strings = _js.to_strings(list(columns.get("uid")))
    return list(map("{}.{}".format, worlds, strings)), None


def _learn(
    found: list[Class | None], columns: Columns, prepare: Prepare, *, one: Class | None
) -> None:
    """Learn the slots of the plain entries' keys in bulk, per key-rule context (``one``:
    the class of every entry, if one is)."""
    every = set(found) if one is None else {one}
    kinds = {id(c.memo): c for c in every if c is not None and c.memo is not None}
    for mid, cls in kinds.items():
        if len(kinds) == 1 and (one is not None or None not in found):
            chosen: list[int] | None = None
        else:
            chosen = [p for p, c in enumerate(found) if c and id(c.memo) == mid]
        if chosen is None:  # every entry, in any order (only the needle ids' order differs)
            keys = (
                columns.flat("key", loaded=True)
                if not any(columns.loaded("keysecondary"))
                else None
            ) or _keys_of(columns.get("key", loaded=True), columns.get("keysecondary", loaded=True))
        else:
            keys = _keys_of(columns.at(chosen, "key"), columns.at(chosen, "keysecondary"))
        assert cls.memo is not None
        learn_slots(keys, cls.memo, context=cls.context, needles=prepare.needles)


def _keys_of(primary: Sequence[JSONValue], secondary: Sequence[JSONValue]) -> list[JSONValue]:
    """Every ``key`` and ``keysecondary`` list item of the entries, in order."""
    if set(map(type, primary)) | set(map(type, secondary)) == {list}:
        lists = cast("list[list[JSONValue]]", primary)
        return list(chain.from_iterable(map(chain, lists, secondary)))
    return [
        k
        for pair in zip(primary, secondary, strict=True)
        for v in pair
        if isinstance(v, list)
        for k in v
    ]


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
    plain, gated = Kind.PLAIN, Kind.GATED
    every = kinds.count(plain) == len(kinds)  # the common case (tested by identity)
    plan.kind = kinds
    plan.plain = [True] * len(kinds) if every else list(map(is_, kinds, repeat(plain)))
    plan.config = cids
    plan.primary = primaries
    plan.secondary = secondaries
    always = not every and Kind.ALWAYS in kinds
    plan.always_visit = [pos for pos, k in enumerate(kinds) if k is Kind.ALWAYS] if always else []
    regex = plan.regex_needles
    if regex:
        for pos, (primary, sec) in enumerate(zip(primaries, secondaries, strict=True)):
            if (primary and min(primary) <= REGEX) or (
                sec is not None and sec.slots and min(sec.slots) <= REGEX
            ):
                plan.regex_positions.add(pos)
    by_needle = plan.by_needle
    if every:
        listed = list(range(len(kinds)))
    else:
        listed = [p for p, k in enumerate(kinds) if k is plain or k is gated]
    if len(by_needle) == 1 and not regex and not by_needle[0]:  # one configuration, no regex
        _index(by_needle[0], listed, primaries)
        return
    for pos in listed:
        table = cast("dict[int, list[int]]", by_needle[cids[pos]])
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


def _index(
    table: dict[int, Sequence[int]], listed: list[int], primaries: list[tuple[int, ...]]
) -> None:
    """List each position under the needle ids of its primary slots (ascending, once).

    A plain loop: in large.json nearly every needle is shared by several entries, and the
    loop (specialised by the interpreter) beats building the pairs in C and grouping
    them (3 ms against 8 for 15,000 slots)."""
    lists: dict[int, list[int]] = {}
    get = lists.get
    for pos, slots in zip(listed, map(primaries.__getitem__, listed), strict=True):
        for slot in slots:
            got = get(slot)
            if got is None:
                lists[slot] = [pos]
            elif got[-1] != pos:  # a key repeated in the entry
                got.append(pos)
    lists.pop(EMPTY, None)
    lists.pop(UNKNOWN, None)
    table.update(lists)
