"""Per-entry facts the budget, recursion, assembly and timed-effect steps read from an entry's
own fields, derived once per prepared entry instead of once per scan.

Each fact is computed by the very function the straightforward path applies (``_js``
truthiness and equality, ``timed_effects.may_record``, ``macros.may_have_macros``), from the
plan's entry object, which a scan never changes except for its ``hash`` (the scan works on a
copy once it writes ``content``). A ``FactTable`` lives on its ``Plan`` and fills itself
lazily, entry by entry, so the first scan pays only for the entries it nominates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import is_, itemgetter

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.engine.fast.found import UNSEEN
from worldinfo.engine.fast.recent import RecentTexts, Visit
from worldinfo.engine.timed_effects import TYPES, may_record
from worldinfo.macros.names import may_have_macros
from worldinfo.types import Position, RawEntry

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from worldinfo._lazy import NamedTuple

OUTLET = 7
"""``Position.OUTLET``: contents collected under the entry's ``outletName``."""
AT_DEPTH = Position.AT_DEPTH.value
NO_BUCKET = -1
"""An entry whose ``position`` is none of SillyTavern's: it is never placed."""
_BUCKETS = (0, 1, 5, 6, 2, 3, AT_DEPTH, OUTLET)
"""The positions in the order ``output.assemble`` tests them (``===``)."""


class Facts(NamedTuple):
    """What one entry's own fields decide outside candidate selection.

    A ``NamedTuple`` rather than a frozen dataclass: one is built per prepared entry the
    first time a scan nominates it, and a frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` per field) cost five times the facts themselves.
    """

    ignore_budget: bool
    """``ignoreBudget`` is truthy (R48)."""
    rolls: bool
    """A probability roll applies: ``useProbability`` truthy and ``probability !== 100``."""
    plain_content: str | None
    """The content when the entry has one and it is a string a substituter that keeps text
    without macros as is (``identity_without_braces``) returns unchanged; ``None``
    otherwise (then the scan writes the substituted content to its copy of the entry)."""
    units: int
    """UTF-16 length of ``plain_content`` plus one (its line break in the budget text)."""
    prevent_recursion: bool
    """``preventRecursion`` is truthy: the content is not added to the recursion buffer."""
    may_record: bool
    """``timed_effects.may_record``: activating the entry writes a timed-effect record."""
    order: float
    """``Number(order)``: the assembly sorts by it, descending."""
    bucket: int
    """The first of ``_BUCKETS`` the ``position`` strictly equals, else ``NO_BUCKET``."""
    depth: JSONValue
    """``depth ?? 4`` (at-depth entries and the regex hook)."""
    raw_depth: JSONValue
    """``depth`` as it is (the at-depth group created by the entry keeps it)."""
    role: JSONValue
    """``role ?? 0``."""
    outlet: str | None
    """``String(outletName)`` when it is truthy, else ``None``."""


def _plain_content(entry: RawEntry) -> str | None:
    """The entry's ``content`` when it is a string held by the entry with no macro in it."""
    content = entry.get("content", UNDEFINED)  # held by the entry: not ``undefined``
    if isinstance(content, str) and not may_have_macros(content):
        return content
    return None


def facts_of(entry: RawEntry) -> Facts:
    """The facts of ``entry`` (a plan's entry object, before any content substitution)."""
    get = entry.get
    plain = _plain_content(entry)
    position = get("position", UNDEFINED)
    if _js.is_safe_integer(position):  # so are the buckets: ``===`` is ``in``
        bucket = position if position in _BUCKETS else NO_BUCKET
    else:
        bucket = next((b for b in _BUCKETS if _js.strict_eq(position, b)), NO_BUCKET)
    outlet = get("outletName", UNDEFINED)
    return Facts(  # positionally, in field order: keywords cost twice as much here
        _js.truthy(get("ignoreBudget", UNDEFINED)),  # ignore_budget
        _js.truthy(get("useProbability", UNDEFINED))  # rolls
        and not _js.strict_eq(get("probability", UNDEFINED), 100),
        plain,  # plain_content
        0 if plain is None else _js.utf16_len(plain) + 1,  # units
        _js.truthy(get("preventRecursion")),  # prevent_recursion
        may_record(entry),  # may_record
        _js.to_number(get("order", UNDEFINED)),  # order
        bucket,
        _js.coalesce(get("depth", UNDEFINED), 4),  # depth
        get("depth", UNDEFINED),  # raw_depth
        _js.coalesce(get("role", UNDEFINED), 0),  # role
        _js.to_string(outlet) if _js.truthy(outlet) else None,  # outlet
    )


CLASS_FIELDS = (
    "ignoreBudget",
    "useProbability",
    "probability",
    "preventRecursion",
    *TYPES,
    "position",
    "depth",
    "role",
    "outletName",
)
"""The fields ``facts_of`` reads besides ``content`` and ``order``: entries that hold the same
objects in them share every fact but ``plain_content``, ``units`` and ``order``."""
_MISSING = (UNDEFINED,) * len(CLASS_FIELDS)
_CLASSES_PER_BATCH = 3
"""``FactTable.derive`` passes over a batch for the classes of its first few entries only:
a batch of entries of many classes costs a pass per class."""


def facts_like(entry: RawEntry, alike: Facts) -> Facts:
    """``facts_of(entry)`` for an entry whose ``CLASS_FIELDS`` are those of the entry whose
    facts are ``alike``: only its ``content`` and ``order`` are read."""
    plain = _plain_content(entry)
    units = 0 if plain is None else _js.utf16_len(plain) + 1
    number = _js.to_number(entry.get("order", UNDEFINED))
    a0, a1, _, _, a4, a5, _, a7, a8, a9, a10, a11 = alike
    row = (a0, a1, plain, units, a4, a5, number, a7, a8, a9, a10, a11)
    return tuple.__new__(Facts, row)  # as ``Facts(*row)``, without its Python ``__new__``


class FactTable:
    """The facts of a plan's entries by position, each computed on first use; and what
    ``FastScan.visit`` derived from key hits in recent scans (a pure function of the hits,
    the plan's static tables and the always-visited positions), kept a few at a time.

    A cache, not a value: no equality or repr of its contents."""

    __slots__ = ("_classes", "_codes", "_facts", "_last", "fresh", "quick", "recent", "visits")

    def __init__(self) -> None:
        self._facts: list[Facts | None] = []
        self.fresh = False
        """Set when the table is sized (in the first scan of its plan), cleared when that
        scan hands its entries out (``handout``): the budget phase of a first scan derives
        facts in batches (``derive``); later scans meet few new entries, one at a time."""
        self.quick: list[int] = []
        """By position: the ``units`` of an entry whose facts are derived, with a plain
        content, no roll and no ``ignoreBudget`` (the budget phase's short branch), else 0."""
        self._classes: dict[tuple[int, ...], tuple[tuple[JSONValue, ...], Facts, _Check | None]]
        self._classes = {}
        """``id`` of each ``CLASS_FIELDS`` value -> the values and the facts of the first
        such entry, and their ``_check``."""
        self._last: _Check | None = None
        """The class ``_derive`` met last, as ``_check`` tests it."""
        self.visits: dict[tuple[tuple[int, ...], tuple[int, ...]], Visit] = {}
        """(always-visited positions, ``id`` of each found set) -> the sets and the sorted
        union (the sets are kept alive with it, so their ids stay theirs)."""
        self._codes = bytearray()
        self.recent = RecentTexts()
        """Key ids per text, unions of id sets and joined recursion texts of recent scans."""

    def codes(self, size: int) -> bytearray:
        """How ``FastScan.codes`` nominates each position (``found.UNSEEN`` until known)."""
        if len(self._codes) != size:
            self._codes = bytearray([UNSEEN]) * size
        return self._codes

    def sized(self, entries: Sequence[RawEntry]) -> list[Facts | None]:
        """The facts by position of ``entries`` (the plan's), ``None`` where not derived
        yet (``at`` derives them): hot loops read it instead of calling ``at``."""
        table = self._facts
        if not table:
            self.fresh = True
            table.extend([None] * len(entries))
            self.quick.extend([0] * len(entries))
        return table

    def at(self, entries: Sequence[RawEntry], pos: int) -> Facts:
        """The facts of ``entries[pos]`` (``entries``: the plan's own entry objects)."""
        got = (self._facts or self.sized(entries))[pos]
        return self._keep(pos, self._derive(entries[pos])) if got is None else got

    def _keep(self, pos: int, facts: Facts) -> Facts:
        """Store the derived ``facts`` of ``pos`` (and its ``quick`` units); return them.
        (By index: a ``Facts`` property costs a call.)"""
        self._facts[pos] = facts
        if facts[2] is not None and not (facts[1] or facts[0]):
            self.quick[pos] = facts[3]
        return facts

    def derive(self, entries: Sequence[RawEntry], positions: Sequence[int]) -> None:
        """``at`` of each of ``positions`` (``entries``: the plan's), a class at a time
        (``_derive_class``) for the first few classes met, then one by one."""
        table = self.sized(entries)
        todo = [p for p in dict.fromkeys(positions) if table[p] is None]
        for _ in range(_CLASSES_PER_BATCH):
            if len(todo) < 2:
                break
            todo = self._derive_class(entries, todo)
        for pos in todo:
            self.at(entries, pos)

    def _derive_class(self, entries: Sequence[RawEntry], todo: list[int]) -> list[int]:
        """Derive the facts of ``todo[0]`` as ``at`` does, and those of the entries of
        ``todo`` whose ``CLASS_FIELDS`` hold the very objects of its (one pass over them
        per field): ``facts_like`` of its class for each. Return the other positions."""
        table = self.sized(entries)
        self.at(entries, todo[0])
        objs = list(map(entries.__getitem__, todo))
        values = tuple(map(objs[0].get, CLASS_FIELDS, _MISSING))
        alike = self._classes[tuple(map(id, values))][1]
        same: list[bool] | None = None  # ``None``: every entry holds the class's objects
        for name, value in zip(CLASS_FIELDS, values, strict=True):
            col = list(map(dict.get, objs, repeat(name), repeat(UNDEFINED)))
            if col.count(value) == len(col) and all(map(is_, col, repeat(value))):
                continue
            hit = list(map(is_, col, repeat(value)))
            same = hit if same is None else [a and b for a, b in zip(same, hit, strict=True)]
        rest: list[int] = []
        if same is not None:
            rest = list(compress(todo, [not s for s in same]))
            todo, objs = list(compress(todo, same)), list(compress(objs, same))
        keep = self._keep
        for pos, obj in zip(todo, objs, strict=True):
            if table[pos] is None:  # ``todo[0]`` is derived
                keep(pos, facts_like(obj, alike))
        return rest

    def _derive(self, entry: RawEntry) -> Facts:
        """``facts_of(entry)``, its class's shared facts derived once (``facts_like``).

        The class is the identity of each ``CLASS_FIELDS`` value: the same objects are the
        same values of the same types (``1``, ``1.0`` and ``True`` are equal dict keys, not
        equal to JavaScript); parsed books share their small ints, ``None`` and booleans.
        The values are kept with the facts, so their ids stay theirs: while a class holds
        its values, no other live object has their ids, so the ids of an entry's values
        (alive in the entry) name that class only when the values are those very objects.
        """
        last = self._last
        if last is not None and not self.fresh and type(entry) is dict:  # (``_check``)
            try:
                held = last[0](entry)
            except KeyError:  # the entry lacks a field the class holds
                held = None
            if (
                held is not None
                and all(map(is_, held, last[2]))
                and entry.keys().isdisjoint(last[1])
            ):
                return facts_like(entry, last[3])
        got = self._classes.get(tuple(map(id, map(entry.get, CLASS_FIELDS, _MISSING))))
        if got is None:
            values = tuple(map(entry.get, CLASS_FIELDS, _MISSING))
            facts = facts_of(entry)
            got = self._classes[tuple(map(id, values))] = (values, facts, _check(values, facts))
            self._last = got[2]
            return facts
        self._last = got[2]
        return facts_like(entry, got[1])


_Check = tuple[
    Callable[[RawEntry], tuple[JSONValue, ...]], frozenset[str], tuple[JSONValue, ...], Facts
]
"""A class as ``_check`` tests it: the fields it holds (getter), lacks, its values, facts."""


def _check(values: tuple[JSONValue, ...], facts: Facts) -> _Check | None:
    """How a later scan's ``FactTable._derive`` tells that an entry is of the class it met
    last without the class key's ten ``get`` and ``id`` calls and lookup (about half the
    instructions): the fields the class holds, read at once (``itemgetter``: a
    ``KeyError`` if one is missing; a plain ``dict`` has no ``__missing__``), are those very
    objects, and the fields it lacks (``UNDEFINED``) are not in the entry. A first scan
    does not try it (its classes interleave; ``derive`` batches them). ``None``: a class
    holding fewer than two fields (``itemgetter`` of one returns no tuple)."""
    fields = [f for f, v in zip(CLASS_FIELDS, values, strict=True) if v is not UNDEFINED]
    if len(fields) < 2:
        return None
    lacks = frozenset(CLASS_FIELDS).difference(fields)
    return itemgetter(*fields), lacks, tuple(v for v in values if v is not UNDEFINED), facts
