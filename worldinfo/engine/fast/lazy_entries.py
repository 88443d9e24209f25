"""A plan's entry objects by position, each built the first time a scan reads it
(``LazyEntries``), from the entries' origins (``Origin``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from worldinfo.engine.gathering import decorated_object, decorated_objects
from worldinfo.trust import TrustPolicy
from worldinfo.types import Entry, RawEntry

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import cast, overload
else:
    from worldinfo._lazy import cast, overload

Origin = tuple[Entry, str, list[int]]
"""Where a prepared entry comes from: the book entry, the book name, and its hash once known."""


class LazyEntries(Sequence[RawEntry]):
    """A plan's entry objects by position, each built (``decorated_object`` of its origin)
    the first time it is read, and registered in ``ids`` (its ``id`` -> position): a scan
    reads only the entries it visits, so a new plan does not build thousands it never needs.

    Args:
        origins: the origin of each position.
        trust: the trust policy the objects are built under.
    """

    __slots__ = ("_origins", "_trust", "ids", "made", "trusted")

    def __init__(self, origins: list[Origin], *, trust: TrustPolicy) -> None:
        self._origins = origins
        self._trust = trust
        self.made: list[RawEntry | None] = [None] * len(origins)
        """The objects built so far (``None``: not yet)."""
        self.ids: dict[int, int] = {}
        self.trusted = bytearray()
        """1 at the positions known to hold a trusted entry (set by the plan's builder)."""
        """``id`` of each object built -> its position."""

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
            origins = list(map(self._origins.__getitem__, todo))
            if trusted.count(1) == len(made):
                objs = decorated_objects([o[0] for o in origins], [o[1] for o in origins])
            else:
                objs = [
                    decorated_object(
                        e, w, trust=self._trust, trusted=p < len(trusted) and trusted[p] == 1
                    )
                    for p, (e, w, _) in zip(todo, origins, strict=True)
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
