"""A plain entry's object as the rules read it, without building it (``StoredView``).

``gathering.decorated_object`` builds ``{uid, world, ...fields}`` with ``decorators`` and the
content stripped of them. For a plain entry (trusted, a string ``content`` that does not start
with ``@@``, no stored ``world`` or ``decorators``) that object differs from the stored fields
only by ``uid`` being present, ``world`` (the book name) and ``decorators`` (``[]``): the view
answers those three and reads everything else from the stored fields. It can record which
fields are read, so the plan knows what a rule's outcome depends on (``classes``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from worldinfo._js import UNDEFINED, JSONValue

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
