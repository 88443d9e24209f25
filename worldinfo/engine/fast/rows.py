"""The per-position facts of a plan's plain entries, computed a column at a time.

``build.build_plan`` classifies the plain entries (``classes.Classes``) and learns the slots
of their keys in bulk (``slots.learn_slots``); what is left per entry is reading its
``key`` list through the slot memo of its class, its secondary keys (``entry_rules``) and
its kind (``slots.kinds_from``). Done entry by entry in one loop, that was a dozen Python
calls per entry; here each step is one pass over a column (``map`` over the stored fields,
the slots of all keys looked up at once and cut back into tuples), and an entry whose keys
are not all in the memo (a regex key, a key that is not a string) falls back to
``Prepare.slots`` on its own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, islice

from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.engine import entry_rules
from worldinfo.engine.fast.classes import Class
from worldinfo.engine.fast.plan import Kind, Secondary
from worldinfo.engine.fast.prepare import Prepare
from worldinfo.engine.fast.slots import kinds_from
from worldinfo.engine.fast.stored import StoredView
from worldinfo.types import RawEntry

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import cast
else:
    from worldinfo._lazy import cast

Slots = tuple[int, ...]


def plain_rows(
    found: Sequence[Class | None],
    datas: Sequence[Mapping[str, JSONValue]],
    prepare: Prepare,
) -> tuple[list[Slots], list[Secondary | None], list[Kind]]:
    """Primary slots, secondary keys and kind of each position whose class is known (the
    others get placeholders: ``()``, ``None``, ``Kind.NEVER``; ``build_plan`` prepares
    them on their own)."""
    n = len(found)
    groups: dict[int, tuple[Class, list[int]]] = {}
    if n and found[0] is not None and found.count(found[0]) == n:
        groups[id(found[0])] = (found[0], list(range(n)))
    else:
        for pos, cls in enumerate(found):
            if cls is not None:
                groups.setdefault(id(cls), (cls, []))[1].append(pos)
    primaries: list[Slots] = [()] * n
    secondaries: list[Secondary | None] = [None] * n
    kinds: list[Kind] = [Kind.NEVER] * n
    for cls, positions in groups.values():
        if len(positions) == n:
            stands: Sequence[Mapping[str, JSONValue]] = datas
        else:
            stands = list(map(datas.__getitem__, positions))
        prim = _primaries(stands, cls, prepare)
        sec = _secondaries(stands, cls, prepare)
        kind = kinds_from(prim, sec, fixed=cls.fixed, gated=cls.waits)
        if len(positions) == n:
            primaries, secondaries, kinds = prim, sec, kind
            continue
        for pos, p, s, k in zip(positions, prim, sec, kind, strict=True):
            primaries[pos] = p
            secondaries[pos] = s
            kinds[pos] = k
    return primaries, secondaries, kinds


def _primaries(
    stands: Sequence[Mapping[str, JSONValue]], cls: Class, prepare: Prepare
) -> list[Slots]:
    """The slots of each entry's ``key`` list, looked up all at once in the class's memo."""
    listed = [d.get("key", UNDEFINED) for d in stands]
    memo = cls.memo
    out: list[Slots] | None = None
    if memo is not None and set(map(type, listed)) == {list}:
        lists = cast("list[list[JSONValue]]", listed)
        flat = list(chain.from_iterable(lists))
        try:
            slots: list[int | None] = list(map(memo.get, flat))
        except TypeError:  # a key that is not hashable (a list, an object)
            slots = []
        if len(slots) == len(flat):
            lengths = list(map(len, lists))
            width = lengths[0] if lengths else 0
            cut = cast("Iterator[int]", iter(slots))
            if width and lengths.count(width) == len(lengths):
                out = list(zip(*[cut] * width, strict=False))  # the tuples, cut in C
            else:
                out = [tuple(islice(cut, k)) for k in lengths]
            if None in slots:  # a key the memo lacks (a regex key, ...): on its own
                for i in [i for i, t in enumerate(out) if None in t]:
                    out[i] = _slots(listed[i], stands[i], cls, prepare)
    if out is None:
        out = [_slots(k, s, cls, prepare) for k, s in zip(listed, stands, strict=True)]
    return out


def _secondaries(
    stands: Sequence[Mapping[str, JSONValue]], cls: Class, prepare: Prepare
) -> list[Secondary | None]:
    """Each entry's secondary keys that apply (``entry_rules``) and their slots."""
    listed: list[list[JSONValue] | None] | None = _none_when_empty(stands)
    if listed is None:
        listed = list(map(entry_rules.secondary_keys, stands))
    out: list[Secondary | None] = [None] * len(listed)
    if listed.count(None) == len(listed):
        return out
    logic = entry_rules.selective_logic
    for i, sec in enumerate(listed):
        if sec is not None:
            stand = stands[i]
            out[i] = Secondary(logic=logic(stand), slots=_slots(sec, stand, cls, prepare))
    return out


def _slots(keys: JSONValue, stand: Mapping[str, JSONValue], cls: Class, prepare: Prepare) -> Slots:
    entry: RawEntry = stand  # type: ignore[assignment]  # read only, like the object
    return prepare.slots(keys, entry, cls.memo, cls.context)


_SECONDARY_FIELDS = frozenset(("selective", "keysecondary"))


def _none_when_empty(
    stands: Sequence[Mapping[str, JSONValue]],
) -> list[list[JSONValue] | None] | None:
    """``secondary_keys`` of each entry when every ``keysecondary`` is an empty list and the
    rule, run on one entry per distinct ``selective`` value, reads only those two fields and
    gives ``None`` (then it gives ``None`` for each entry); else ``None``: ask each entry."""
    lists = [d.get("keysecondary", UNDEFINED) for d in stands]
    if set(map(type, lists)) != {list} or any(lists):
        return None
    values = [d.get("selective", UNDEFINED) for d in stands]
    pairs = list(zip(map(type, values), values, strict=True))
    try:
        distinct = dict.fromkeys(pairs)
    except TypeError:  # a list or object in ``selective``
        return None
    for i in map(pairs.index, distinct):
        read: set[str] = set()
        if entry_rules.secondary_keys(StoredView(stands[i], "", read)) is not None:
            return None
        if not read <= _SECONDARY_FIELDS:
            return None
    return [None] * len(stands)
