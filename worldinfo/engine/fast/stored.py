"""A plan's entries as they are stored, and their objects built only when read.

``gathering.decorated_object`` builds ``{uid, world, ...fields}`` with ``decorators`` and the
content stripped of them. For a plain entry (trusted, a string ``content`` that does not start
with ``@@``, no stored ``world`` or ``decorators``) that object differs from the stored fields
only by ``uid`` being present, ``world`` (the book name) and ``decorators`` (``[]``): a
``StoredView`` answers those three and reads everything else from the stored fields. It can
record which fields are read, so the plan knows what a rule's outcome depends on
(``classes``). A plan's entry keys are read from the stored fields the same way, each when
first read (``EntryKeys``); its entry objects are built when a scan first reads them
(``LazyEntries``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.engine.gathering import decorated_object, decorated_objects
from worldinfo.trust import TrustPolicy
from worldinfo.types import Entry, RawEntry

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Protocol, cast, overload

    class Keyed(Protocol):
        """What a scan reads of a plan's keys: the key at a position, and how many."""

        def __getitem__(self, pos: int, /) -> str: ...
        def __len__(self) -> int: ...

else:
    from worldinfo._lazy import cast, overload

Origin = tuple[Entry, str, list[int]]
"""Where a prepared entry comes from: the book entry, the book name, and its hash once known."""

EVERY = "\x00every field"
"""Recorded when the view is enumerated: the outcome may depend on any field."""
NOT_PLAIN = ("world", "decorators")
"""Stored fields the entry object replaces (``gathering.entry_object``): not plain."""


def is_plain(data: Mapping[str, JSONValue]) -> bool:
    """Does ``data`` (a trusted entry's stored fields) read like its entry object, but for
    what ``StoredView`` adds?"""
    content = data.get("content")
    return (
        type(content) is str
        and not content.startswith("@@")
        and not any(f in data for f in NOT_PLAIN)
    )


class StoredView(Mapping[str, JSONValue]):
    """The entry object of a plain entry, read from its stored fields.

    Args:
        data: the stored fields (``Entry.data``) of a plain entry (``is_plain``).
        world: the book name.
        read: where to record the name of each field read, if anywhere.
    """

    __slots__ = ("_data", "_world", "read")

    def __init__(
        self, data: Mapping[str, JSONValue], world: str, read: set[str] | None = None
    ) -> None:
        self._data = data
        self._world = world
        self.read = read

    def __getitem__(self, key: str) -> JSONValue:
        if self.read is not None:
            self.read.add(key)
        if key == "world":
            return self._world
        if key == "decorators":
            return []
        if key == "uid":
            return self._data.get("uid", UNDEFINED)
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        if self.read is not None and isinstance(key, str):
            self.read.add(key)
        return key in ("uid", "world", "decorators") or key in self._data

    def __iter__(self) -> Iterator[str]:
        if self.read is not None:
            self.read.add(EVERY)
        return iter(dict.fromkeys(("uid", "world", *self._data, "decorators")))

    def __len__(self) -> int:
        return len(dict.fromkeys(("uid", "world", *self._data, "decorators")))


class EntryKeys(dict[int, str]):
    """Position -> ``entry_key`` of the entry there, made on first read (``__missing__``):
    reading a made key is a dict look-up. ``len`` is the number of positions; iterate
    ``every()``, not the mapping.

    Args:
        origins: each position's book entry and book name.
    """

    __slots__ = ("_origins",)

    def __init__(self, origins: Sequence[Origin]) -> None:
        super().__init__()
        self._origins = origins

    def __len__(self) -> int:
        return len(self._origins)

    def __missing__(self, pos: int) -> str:
        at = range(len(self._origins))[pos]  # as a list is indexed (IndexError)
        if at != pos:
            return self[at]
        self.make([pos])
        return self[pos]

    def make(self, positions: Sequence[int]) -> None:
        """Make the keys of ``positions`` (valid, non-negative) not made yet, together."""
        todo = [p for p in positions if p not in self]
        if todo:
            origins = list(map(self._origins.__getitem__, todo))
            made = _keys([w for _, w, _ in origins], [e for e, _, _ in origins])
            self.update(zip(todo, made, strict=True))

    def every(self) -> list[str]:
        """The key of every position, in order (those not read yet made together)."""
        n = len(self._origins)
        if dict.__len__(self) < n:
            self.make(range(n))
        return list(map(self.__getitem__, range(n)))


def _keys(worlds: Sequence[str], entries: Sequence[Entry]) -> list[str]:
    """``entry_key`` of plain entries' objects: the book name and the stored ``uid``."""
    strings = _js.to_strings([e.data.get("uid", UNDEFINED) for e in entries])
    if worlds and worlds.count(worlds[0]) == len(worlds):  # one book: one prefix
        return list(map(f"{worlds[0]}.".__add__, strings))
    return list(map("{}.{}".format, worlds, strings))


class LazyEntries(Sequence[RawEntry]):
    """A plan's entry objects by position, each built (``decorated_object`` of its origin)
    the first time it is read, and registered in ``ids`` (its ``id`` -> position): a scan
    reads only the entries it visits, so a new plan does not build thousands it never needs.

    Args:
        origins: the origin of each position.
        trust: the trust policy the objects are built under.
    """

    __slots__ = ("_origins", "_trust", "ids", "keys", "made", "trusted")

    def __init__(self, origins: list[Origin], *, trust: TrustPolicy) -> None:
        self._origins = origins
        self._trust = trust
        self.made: list[RawEntry | None] = [None] * len(origins)
        """The objects built so far (``None``: not yet)."""
        self.ids: dict[int, int] = {}
        """``id`` of each object built -> its position."""
        self.trusted = bytearray()
        """1 at the positions known to hold a trusted entry (set by the plan's builder)."""
        self.keys = EntryKeys(origins)
        """The entry keys, made with the objects (a scan reads the key of what it builds)."""

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
            self.keys.make(todo)
        return cast("list[RawEntry]", list(map(made.__getitem__, positions)))

    def snapshot(self, *, complete: bool) -> list[RawEntry]:
        """A scan's own list of the objects: all of them (``complete``), or those built so far,
        with ``None`` at the others until ``FastScan.visit`` reaches them (the fast scan
        reads an entry only at a position it visits)."""
        if complete:
            return list(self)
        return cast("list[RawEntry]", list(self.made))
