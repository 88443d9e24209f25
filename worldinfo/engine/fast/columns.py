"""The stored fields of a plan's entries a column at a time, each field read once.

Building a plan reads about two dozen fields of every entry (the class fields, ``content``,
``key``, ``keysecondary``, ``selective``, ``uid``); read entry by entry, each read is a
Python step. ``Columns`` reads a field of all entries in one loop the first time it is
asked for, and keeps the column for the other steps of the build.

The build is memory-bound: the plan's positions are sorted by ``order``, which scatters
them over memory, and a pass over the dicts in that order waits on the memory for each. Given
the stored fields in the order they were loaded (``stored``, roughly their order in memory)
and each position's index there (``perm``), a column is read in that order and then put in
position order, a list of pointers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from operator import contains, methodcaller

from worldinfo._js import UNDEFINED, JSONValue

ABSENT: JSONValue = object()
"""The value of a column at an entry that does not hold the field (not ``UNDEFINED``,
so that a stored ``UNDEFINED`` is never confused with a missing field)."""

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")


class Columns:
    """Each field of ``datas`` as a column (``ABSENT`` where an entry lacks it).

    Args:
        datas: the stored fields of each position (``Entry.data``).
    """

    __slots__ = (
        "_absent",
        "_cols",
        "_flat",
        "_gaps",
        "_gets",
        "_loaded",
        "_perm",
        "datas",
        "n",
        "stored",
    )

    def __init__(
        self,
        datas: Sequence[Mapping[str, JSONValue]],
        *,
        stored: Sequence[Mapping[str, JSONValue]] | None = None,
        perm: Sequence[int] | None = None,
    ) -> None:
        self.datas = datas
        self.n = len(datas)
        self.stored = datas if stored is None or perm is None else stored
        """The same dicts in the order they were loaded (``datas[i] is stored[perm[i]]``):
        for passes whose outcome does not depend on the order."""
        self._perm = None if stored is None else perm
        self._loaded: dict[str, list[JSONValue]] = {}
        self._cols: dict[str, Sequence[JSONValue]] = {}
        self._gets: dict[tuple[str, bool], Sequence[JSONValue]] = {}
        self._flat: dict[tuple[str, bool], Sequence[JSONValue] | None] = {}
        self._gaps: set[str] = set()
        """The fields some entry lacks (their columns hold ``ABSENT``)."""
        self._absent: set[str] = set()
        """Fields no entry holds (``rule_out``)."""

    def __call__(self, name: str) -> Sequence[JSONValue]:
        """The column of field ``name``, by position (read it, never change it)."""
        got = self._cols.get(name)
        if got is None:
            got = self._cols[name] = self.permute(self.loaded(name))
        return got

    def loaded(self, name: str) -> list[JSONValue]:
        """The column of field ``name`` in the order of ``stored`` (read it, never change
        it): for what does not depend on the order."""
        got = self._loaded.get(name)
        if got is None and name in self._absent:
            got = self._loaded[name] = [ABSENT] * self.n
            self._gaps.add(name)
        if got is None:
            stored = self.stored
            try:
                got = [d[name] for d in stored]  # a subscript the interpreter specialises
            except KeyError:  # some entry lacks it
                if any(map(contains, stored, repeat(name))):
                    got = list(map(methodcaller("get", name, ABSENT), stored))
                else:
                    got = [ABSENT] * self.n
                self._gaps.add(name)
            self._loaded[name] = got
        return got

    def permute(self, items: list[T]) -> list[T]:
        """``items`` of the entries in the order of ``stored``, put in position order (the
        list itself when the orders are one)."""
        return items if self._perm is None else list(map(items.__getitem__, self._perm))

    def get(self, name: str, *, loaded: bool = False) -> Sequence[JSONValue]:
        """The column of field ``name`` as ``get(name, UNDEFINED)`` reads it, in position
        order (or in the order of ``stored``: ``loaded``)."""
        key = (name, loaded)
        got = self._gets.get(key)
        if got is None:
            got = self.loaded(name) if loaded else self(name)
            if name in self._gaps:
                got = [UNDEFINED if v is ABSENT else v for v in got]
            self._gets[key] = got
        return got

    def flat(self, name: str, *, loaded: bool = False) -> Sequence[JSONValue] | None:
        """The items of every entry's list in field ``name``, in position order (or in the
        order of ``stored``: ``loaded``); ``None`` when some entry holds no list there."""
        key = (name, loaded)
        if key in self._flat:
            return self._flat[key]
        col = self.loaded(name) if loaded else self(name)
        got = list(chain.from_iterable(col)) if set(map(type, col)) == {list} else None
        self._flat[key] = got
        return got

    def held(self, name: str) -> bool:
        """Does any entry hold field ``name``?"""
        if name in self._absent:
            return False
        got = self._loaded.get(name)
        if got is not None:
            return got.count(ABSENT) < self.n if name in self._gaps else self.n > 0
        return any(map(contains, self.stored, repeat(name)))

    def rule_out(self, names: Sequence[str]) -> None:
        """Test three of ``names`` at a time in one pass over the entries, and remember the
        ones no entry holds (``held``): books mostly lack the same fields, and one chained
        ``in`` test per entry costs less than a pass per field."""
        first = self.stored[0] if self.stored else {}
        todo = [n for n in dict.fromkeys(names) if n not in first and n not in self._loaded]
        for i in range(0, len(todo), 3):
            a, b, c = (*todo[i : i + 3], todo[i], todo[i])[:3]
            if not [d for d in self.stored if a in d or b in d or c in d]:
                self._absent.update((a, b, c))

    def at(self, positions: Sequence[int] | None, name: str) -> Sequence[JSONValue]:
        """``get(name)`` at ``positions`` only (``None``: every position)."""
        col = self.get(name)
        return col if positions is None else list(map(col.__getitem__, positions))
