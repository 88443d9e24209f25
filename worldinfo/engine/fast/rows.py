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

from collections.abc import Mapping, Sequence
from itertools import chain, islice, repeat

from worldinfo._js import JSONValue
from worldinfo.engine import entry_rules
from worldinfo.engine.fast.classes import Class
from worldinfo.engine.fast.columns import Columns
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
_MISSING = -(2**29)
"""Below every slot: a key the memo lacks (the memo holds only ``EMPTY`` and needle ids)."""


def plain_rows(
    found: Sequence[Class | None], columns: Columns, prepare: Prepare
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
        group = _Group(columns, positions)
        prim, keyed = _primaries(group, cls, prepare)
        sec = _secondaries(group, cls, prepare)
        kind = kinds_from(prim, sec, fixed=cls.fixed, gated=cls.waits, keyed=keyed)
        if len(positions) == n:
            primaries, secondaries, kinds = prim, sec, kind
            continue
        for pos, p, s, k in zip(positions, prim, sec, kind, strict=True):
            primaries[pos] = p
            secondaries[pos] = s
            kinds[pos] = k
    return primaries, secondaries, kinds


class _Group:
    """The entries of one class: their stored fields, and their columns (as ``dict.get``
    reads them, ``Columns.get``)."""

    def __init__(self, columns: Columns, positions: list[int]) -> None:
        every = len(positions) == columns.n
        self._columns = columns
        self._positions = None if every else positions
        self.stands = columns.datas if every else list(map(columns.datas.__getitem__, positions))

    def __call__(self, name: str) -> Sequence[JSONValue]:
        return self._columns.at(self._positions, name)

    def flat(self, name: str) -> Sequence[JSONValue] | None:
        """``Columns.flat`` of the group's entries."""
        if self._positions is None:
            return self._columns.flat(name)
        col = self(name)
        return list(chain.from_iterable(col)) if set(map(type, col)) == {list} else None

    def loaded(self, name: str) -> tuple[Sequence[JSONValue], Sequence[JSONValue] | None]:
        """The column of field ``name`` and its ``flat`` items in an order of the group's
        entries that ``permute`` puts back in position order (for a group of every entry,
        the order they were loaded in: read faster)."""
        if self._positions is None:
            return self.column(name), self._columns.flat(name, loaded=True)
        return self(name), self.flat(name)

    def column(self, name: str) -> Sequence[JSONValue]:
        """The column of field ``name`` in the order of ``loaded``."""
        return self._columns.get(name, loaded=True) if self._positions is None else self(name)

    def permute(self, items: list[Slots]) -> list[Slots]:
        """``items`` in the order of ``loaded``, put in position order."""
        return self._columns.permute(items) if self._positions is None else items

    def stored(self) -> Sequence[Mapping[str, JSONValue]]:
        """The group's stored fields in the order of ``loaded``."""
        return self._columns.stored if self._positions is None else self.stands


def _primaries(group: _Group, cls: Class, prepare: Prepare) -> tuple[list[Slots], bool]:
    """The slots of each entry's ``key`` list, looked up all at once in the class's memo;
    and whether every entry is known to have slots, none ``UNKNOWN`` (the memo holds none)."""
    stands = group.stands
    memo = cls.memo
    out: list[Slots] | None = None
    keyed = False
    lists, flat = group.loaded("key") if memo is not None else ((), None)
    if memo is not None and flat is not None:
        lacking = False
        try:
            try:
                slots = list(map(memo.__getitem__, flat))
            except KeyError:  # a key the memo lacks (regex, ...): marked ``_MISSING``
                slots, lacking = list(map(memo.get, flat, repeat(_MISSING))), True
        except TypeError:  # a key that is not hashable (a list, an object)
            slots = []
        if len(slots) == len(flat):
            lengths = list(map(len, cast("list[list[JSONValue]]", lists)))
            width = lengths[0] if lengths else 0
            cut = iter(slots)
            if width and lengths.count(width) == len(lengths):
                out = list(zip(*[cut] * width, strict=False))  # the tuples, cut in C
                keyed = not lacking
            else:
                out = [tuple(islice(cut, k)) for k in lengths]
            out = group.permute(out)
            if lacking:
                listed = group("key")
                for i in [i for i, t in enumerate(out) if _MISSING in t]:
                    out[i] = _slots(listed[i], stands[i], cls, prepare)
    if out is None:
        out = [_slots(k, s, cls, prepare) for k, s in zip(group("key"), stands, strict=True)]
    return out, keyed


def _secondaries(group: _Group, cls: Class, prepare: Prepare) -> list[Secondary | None]:
    """Each entry's secondary keys that apply (``entry_rules``) and their slots."""
    stands = group.stands
    listed: list[list[JSONValue] | None] | None = _none_when_empty(group)
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


def _none_when_empty(group: _Group) -> list[list[JSONValue] | None] | None:
    """``secondary_keys`` of each entry when every ``keysecondary`` is an empty list and the
    rule, run on one entry per distinct ``selective`` value, reads only those two fields and
    gives ``None`` (then it gives ``None`` for each entry); else ``None``: ask each entry."""
    lists = group.column("keysecondary")  # the outcome does not depend on the order
    if set(map(type, lists)) != {list} or any(lists):
        return None
    stands = group.stored()
    values = group.column("selective")
    firsts: list[int]
    if len(set(map(type, values))) == 1 and values.count(values[0]) == len(values):
        firsts = [0]  # one (type, value) pair throughout
    else:
        pairs = list(zip(map(type, values), values, strict=True))
        try:
            firsts = list(map(pairs.index, dict.fromkeys(pairs)))
        except TypeError:  # a list or object in ``selective``
            return None
    for i in firsts:
        read: set[str] = set()
        if entry_rules.secondary_keys(StoredView(stands[i], "", read)) is not None:
            return None
        if not read <= _SECONDARY_FIELDS:
            return None
    return [None] * len(group.stands)
