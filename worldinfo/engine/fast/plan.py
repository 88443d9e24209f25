"""Prepared lore: what a scan needs to know about its entries, computed once per book version.

``getSortedEntries`` decorates and hashes every entry on every scan (R13-R15); the hash is a
cyrb53 over the entry's JSON text and dominates a scan of a large book. A ``Plan`` holds the
sorted entries of one book selection and the static facts the fast scan path reads (key ids,
which checks can never fire, ...); ``build.build_plan`` computes it, ``cache.ScanCache`` keeps
it across scans. An entry's hash is computed the first time something reads it: timed effects
(then all entries are hashed, once) or its activation (the activated copy carries it).

The plan's entry objects are never handed out or mutated, except that a lazily computed
``hash`` is added: a scan copies an entry before it writes to it (``content`` substitution,
R48).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import IntEnum

from worldinfo._js import JSONValue
from worldinfo._js.regex import RegexKey
from worldinfo._record import field, record
from worldinfo.engine.fast import records
from worldinfo.engine.fast.entry_facts import FactTable
from worldinfo.engine.fast.matcher import KeyIndex
from worldinfo.engine.fast.origins import UNHASHED, Origins
from worldinfo.engine.gathering import (
    decorated_object,
    decorated_objects,
    entry_hash,
    entry_hashes,
)
from worldinfo.trust import DEFAULT_TRUST, TrustPolicy
from worldinfo.types import Book, RawEntry

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import cast, overload
else:
    from worldinfo._lazy import cast, overload

EMPTY = -1
"""Slot of a key that is ``""``: it never matches (R26)."""
UNKNOWN = -2
"""Slot of a key the index cannot decide (regex, macro, non-string, line break)."""
REGEX = -10
"""``REGEX - g``: a regex key whose matches all contain one of the needles
``Plan.regex_needles[g]`` (``RegexKey.needles``); without them the key cannot match, with
one the regex itself is tested on the scan text."""


class Kind(IntEnum):
    """How the fast pass treats an entry."""

    NEVER = 0
    """Disabled: every check before ``disable`` is side-effect free, so it is never visited."""
    PLAIN = 1
    """Every check but the keys is known to pass: decided from the key index alone (and
    regex keys tested in order, where the key index has found one of their needles)."""
    GATED = 2
    """Cannot activate without a primary key hit: visited (full checks) only on a hit."""
    ALWAYS = 3
    """Visited in every pass through the full checks."""


@record(kw_only=False)
class Secondary:
    """Secondary keys that apply (R32): the logic (0-3, 4 = never) and the key slots."""

    logic: int
    slots: tuple[int, ...]


class LazyEntries(Sequence[RawEntry]):
    """A plan's entry objects by position, each built (``decorated_object`` of its origin)
    the first time it is read, and registered in ``ids`` (its ``id`` -> position): a scan
    reads only the entries it visits, so a new plan does not build thousands it never needs.

    Args:
        origins: the origin of each position.
        trust: the trust policy the objects are built under.
    """

    __slots__ = ("_every", "_origins", "_trust", "_trusted", "ids", "made")

    def __init__(self, origins: Origins, *, trust: TrustPolicy) -> None:
        self._origins = origins
        self._trust = trust
        self.made: list[RawEntry | None] = [None] * len(origins)
        """The objects built so far (``None``: not yet)."""
        self.ids: dict[int, int] = {}
        """``id`` of each object built -> its position."""
        self.trusted = bytearray()

    @property
    def trusted(self) -> bytearray:
        """1 at the positions known to hold a trusted entry (set by the plan's builder)."""
        return self._trusted

    @trusted.setter
    def trusted(self, flags: bytearray) -> None:
        self._trusted = flags
        self._every = flags.count(1) == len(self.made)  # counted once, not per ``make_all``

    def __len__(self) -> int:
        return len(self.made)

    @overload
    def __getitem__(self, pos: int) -> RawEntry: ...
    @overload
    def __getitem__(self, pos: slice) -> list[RawEntry]: ...
    def __getitem__(self, pos: int | slice) -> RawEntry | list[RawEntry]:
        if isinstance(pos, slice):
            return [self[p] for p in range(len(self.made))[pos]]
        got = self.made[pos]
        return self.make(pos) if got is None else got

    def __iter__(self) -> Iterator[RawEntry]:
        for pos in range(len(self.made)):
            yield self[pos]

    def make(self, pos: int) -> RawEntry:
        """Build the object at ``pos`` (if it is not built yet) and return it."""
        pos = range(len(self.made))[pos]
        got = self.made[pos]
        return self.make_all([pos])[0] if got is None else got

    def make_all(self, positions: Sequence[int]) -> list[RawEntry]:
        """The objects at ``positions`` (valid, non-negative), those not built yet built
        together."""
        made = self.made
        todo = [p for p in positions if made[p] is None]
        if todo:
            trusted = self.trusted
            entries = list(map(self._origins.entries.__getitem__, todo))
            worlds = list(map(self._origins.worlds.__getitem__, todo))
            if self._every:
                objs = decorated_objects(entries, worlds)
            else:
                objs = [
                    decorated_object(
                        e, w, trust=self._trust, trusted=p < len(trusted) and trusted[p] == 1
                    )
                    for p, e, w in zip(todo, entries, worlds, strict=True)
                ]
            for pos, obj in zip(todo, objs, strict=True):
                made[pos] = obj
            self.ids.update(zip(map(id, objs), todo, strict=True))
        return cast("list[RawEntry]", list(map(made.__getitem__, positions)))

    def snapshot(self, *, complete: bool) -> list[RawEntry]:
        """A scan's own list of the objects: all of them (``complete``), or those built so far,
        with ``None`` at the others until ``FastScan.visit`` reaches them (the fast scan
        reads an entry only at a position it visits)."""
        if complete:
            return list(self)
        return cast("list[RawEntry]", list(self.made))


@record(frozen=False, kw_only=False)
class Plan:
    """The sorted entries of one book selection, and their static facts by position."""

    entries: LazyEntries
    books: tuple[Book | None, ...]
    index: dict[int, int]
    keys: list[str]
    kind: list[Kind]
    config: list[int]
    configs: list[tuple[float | None, tuple[bool, ...]]]
    primary: list[tuple[int, ...]]
    secondary: list[Secondary | None]
    levels: list[JSONValue]
    needles: KeyIndex
    origins: Origins
    hashed: bytearray
    by_needle: list[dict[int, Sequence[int]]] = field(default_factory=list)
    always_visit: list[int] = field(default_factory=list)
    by_hash: dict[int, list[int]] = field(default_factory=dict)
    """Hash -> every position with it, for the entries indexed (``records``)."""
    hashed_at: dict[int, int] = field(default_factory=dict)
    """Hash -> a position hashed with it (any entry hashed, indexed or not)."""
    keys_distinct: bool | None = None
    """No two entries share a hash (``records.learn_keys``); ``None``: not known yet."""
    key_ids: list[int] | None = None
    """The ``uid`` of each entry, in load order, when the keys are one book name and a safe
    integer each (``build``): the keys are distinct when these are (``records``)."""
    _by_key: dict[str, int | list[int]] | None = None
    odd_indexed: bool = False
    """The entries with a ``world`` or ``uid`` that is not plain are indexed."""
    indexed_keys: set[str] = field(default_factory=set)
    indexed: bytearray = field(default_factory=bytearray)
    delay_positions: list[int] = field(default_factory=list)
    plain: list[bool] = field(default_factory=list)
    any_group: bool = False
    any_ignore_budget: bool = False
    all_hashed: bool = False
    trust: TrustPolicy = DEFAULT_TRUST
    untrusted: frozenset[str] = frozenset()
    """``"world.uid"`` of the untrusted entries (their keys pass ``trust.key_refusal``)."""
    regex_needles: list[tuple[int, ...]] = field(default_factory=list)
    """Needle ids of each regex key slot (``REGEX - g``): one of them is in every match."""
    regex_keys: list[RegexKey] = field(default_factory=list)
    """The compiled key of each regex key slot (``REGEX - g``)."""
    regex_positions: set[int] = field(default_factory=set)
    """Positions of the entries with a regex key slot (primary or secondary)."""
    facts: FactTable = field(default_factory=FactTable)
    """Budget, recursion, assembly and timed-effect facts per entry, filled on first use."""

    def ensure_hash(self, pos: int) -> int:
        """Give the entry at ``pos`` its ``hash`` (R13), computed on first need, and return
        it: a scan without timed effects never reads the hash of an entry it does not
        activate, and activated entries get theirs when the result is read."""
        memo, cell = self.origins.memos[pos], self.origins.cells[pos]
        if memo[cell] == UNHASHED:
            memo[cell] = entry_hash(self._unhashed(pos))
        if not self.hashed[pos]:
            self.entries[pos]["hash"] = memo[cell]
            self.hashed[pos] = 1
            self.hashed_at.setdefault(memo[cell], pos)
        return memo[cell]

    def ensure_hashes(self, positions: Sequence[int]) -> None:
        """``ensure_hash`` for each position; the entries not hashed before are hashed in
        one batch (``entry_hashes``)."""
        memos, cells = self.origins.memos, self.origins.cells
        todo = [p for p in positions if memos[p][cells[p]] == UNHASHED]
        if len(todo) > 1:
            objs = list(map(self._unhashed, todo))
            for pos, h in zip(todo, entry_hashes(objs), strict=True):
                memos[pos][cells[pos]] = h  # an entry selected twice: one cell, one hash
        for pos in positions:
            self.ensure_hash(pos)

    def _unhashed(self, pos: int) -> RawEntry:
        """The decorated object of the entry at ``pos`` before its ``hash``: the plan's own
        when it is built and not hashed yet (nothing else is ever written to it)."""
        made = self.entries.made[pos]
        if made is not None and not self.hashed[pos]:
            return made
        origins = self.origins
        return decorated_object(origins.entries[pos], origins.worlds[pos], trust=self.trust)

    def ensure_all_hashes(self) -> None:
        """Hash every entry and index them all by hash."""
        if self.all_hashed:
            return
        self.ensure_hashes(range(len(self.entries)))
        self.by_hash.clear()
        for pos in range(len(self.entries)):
            self.by_hash.setdefault(self.ensure_hash(pos), []).append(pos)
        self.all_hashed = True

    def index_key(self, key: str) -> None:
        """Hash the entries whose ``"world.uid"`` is ``key`` and index them by hash
        (``records.index_key``)."""
        records.index_key(self, key)

    def index_position(self, pos: int) -> None:
        """Index by hash every entry with the hash of the entry at ``pos``
        (``records.index_position``)."""
        records.index_position(self, pos)

    def find_record(self, key: str, text: str) -> int | None:
        """Position of the first entry whose ``String(hash)`` is ``text``, for the timed
        effect recorded under ``key`` (``records.find_record``)."""
        return records.find_record(self, key, text)

    def positions_of_key(self, key: str) -> list[int]:
        """Positions of the entries whose ``"world.uid"`` is ``key``."""
        if self._by_key is None:
            keys = self.keys
            by_key: dict[str, int | list[int]] = dict(zip(keys, range(len(keys)), strict=True))
            if len(by_key) < len(keys):  # some key is shared: list every position
                shared: dict[str, list[int]] = {}
                for pos, k in enumerate(keys):
                    shared.setdefault(k, []).append(pos)
                by_key = dict(shared)
            self._by_key = by_key
            records.learn_keys(self, distinct=len(by_key) == len(keys))
        got = self._by_key.get(key)
        return [] if got is None else [got] if isinstance(got, int) else got
