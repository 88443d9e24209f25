"""A plan's entry keys (``"world.uid"``, ``types.entry_key``) by position, each made when
first read (``EntryKeys``).

A scan reads the key of each entry it visits (a few hundred of a large book's thousands);
a timed effect or a forced activation looks entries up by key, which needs every key
(``every``). The key of a plain entry (``build``: its object holds the stored ``uid`` and
the book name as ``world``) is read from its stored fields; the plan's builder stores the
key of any other entry, from its object, before anything reads it.
"""

from __future__ import annotations

from worldinfo import _js
from worldinfo._js import UNDEFINED
from worldinfo.types import Entry

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    from worldinfo.engine.fast.lazy_entries import Origin

    class Keyed(Protocol):
        """What a scan reads of a plan's keys: the key at a position, and how many."""

        def __getitem__(self, pos: int, /) -> str: ...
        def __len__(self) -> int: ...


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
        entry, world, _ = self._origins[pos]
        got = self[pos] = _key(world, entry)
        return got

    def every(self) -> list[str]:
        """The key of every position, in order (those not read yet made together)."""
        n = len(self._origins)
        if dict.__len__(self) < n:
            todo = [p for p in range(n) if not dict.__contains__(self, p)]
            origins = list(map(self._origins.__getitem__, todo))
            uids = [e.data.get("uid", UNDEFINED) for e, _, _ in origins]
            worlds = [w for _, w, _ in origins]
            made = list(map("{}.{}".format, worlds, _js.to_strings(uids)))
            self.update(zip(todo, made, strict=True))
        return list(map(self.__getitem__, range(n)))


def _key(world: str, entry: Entry) -> str:
    """``entry_key`` of a plain entry's object: the book name and the stored ``uid``."""
    return f"{world}.{_js.to_string(entry.data.get('uid', UNDEFINED))}"
