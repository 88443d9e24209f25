"""The retriever as an activation source, "memories" mode: a virtual "chat memory" book.

Before each scan the source syncs its store with the chat (finished exchanges are ingested,
vanished ones deleted), queries it with the newest user message and the character's reply
before it, and -- if a record clears the floor -- adds that memory as an entry of the
virtual book through ``entries_loaded`` and forces it on through ``force_activate``. The
entry then goes through the same pipeline as any entry: budget, order, timed effects.

Each memory entry is a pure function of its record (uid = record id, content = the block of
F11), so SillyTavern's timed effects, which key on the entry, recognise the same memory
across turns: ``cooldown`` stops it being injected again every turn, ``sticky`` keeps a
thread. The entry is not ``constant`` and has no keys: it is active only when forced (it
was retrieved this turn) or sticky. The last ``keep_recent`` picks stay loaded so a sticky
memory can hold while another one is retrieved.

Default placement: ``position`` 4 (at depth), ``depth`` 4, ``role`` 0 (system), ``order``
100, in the chat lore list (sorted first, like a chat lorebook), ``preventRecursion`` on
(old chat text should not trigger lore entries), no sticky/cooldown unless configured. The reply
lines are labelled with the chat's character name (the first one seen by this source) unless
``character_name`` is set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Literal

from worldinfo._js import JSONValue
from worldinfo._record import record
from worldinfo.engine.gathering import sort_lore
from worldinfo.sources.base import LoadedLore, NullSource, ScanContext
from worldinfo.sources.retriever import RecordStore, Retrieval, format_block
from worldinfo.sources.retriever_chat import ChatSync, last_turn
from worldinfo.sources.retriever_index import Record
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.retriever_tokenize import lore_tokens
from worldinfo.types import ENTRY_TEMPLATE, Book, Message, Position, Role

DEFAULT_SETTINGS = RetrieverSettings()
LoreList = Literal["chat", "global", "character", "persona"]


@record
class MemoryPlacement:
    """Where and how memory entries go (the module docstring gives the defaults' reasons)."""

    book: str = "chat memory"
    position: int = Position.AT_DEPTH
    depth: int = 4
    role: int = Role.SYSTEM
    order: int = 100
    sticky: int | None = None
    cooldown: int | None = None
    delay: int | None = None
    prevent_recursion: bool = True
    lore_list: LoreList = "chat"
    keep_recent: int = 8


def as_scanned(entry: dict[str, JSONValue]) -> dict[str, JSONValue]:
    """The entry as a scan sees it (decorated and hashed, like ``getSortedEntries``).

    Forced objects replace the loaded entry when activated, and timed effects key on the
    ``hash``, so forced objects must carry the same hash as the loaded entry.
    """
    return sort_lore(LoadedLore(chat_entries=[entry]), strategy=1)[0]


def book_keys(books: Sequence[Book], *, skip: str = "") -> list[str]:
    """Primary keys of every entry of the books in play (the lore tokens' source, F9)."""
    keys: list[str] = []
    for book in books:
        if book.name == skip:
            continue
        for entry in book.entries or ():
            keys.extend(k for k in entry.keys if isinstance(k, str))
    return keys


class RetrieverSource(NullSource):
    """Shared part of both modes: chat sync, lore tokens, one query per scan."""

    def __init__(self, store: RecordStore, *, chat_id: str = "chat", ingest: bool = True) -> None:
        self.store = store
        self.ingest = ingest
        self._sync = ChatSync(store, chat_id=chat_id)
        self._cache: tuple[object, Retrieval] | None = None

    def messages_changed(self, chat: Sequence[Message]) -> None:
        """Ingest finished exchanges, delete vanished ones."""
        if self.ingest:
            self._sync.sync(chat)

    def lore(self, context: ScanContext, *, skip: str = "") -> frozenset[str]:
        """Lore tokens of the books in play."""
        keys = book_keys(context.books, skip=skip)
        return lore_tokens(keys, punctuation=self.store.settings.punctuation)

    def query(self, context: ScanContext, *, skip: str = "") -> Retrieval:
        """Retrieve for this scan (computed once per context)."""
        if self._cache is not None and self._cache[0] is context:
            return self._cache[1]
        self.messages_changed(context.chat)
        message, previous = last_turn(context.chat)
        result = self.store.retrieve(message, previous, lore=self.lore(context, skip=skip))
        self._cache = (context, result)
        return result


class MemorySource(RetrieverSource):
    """Memories mode: the retrieved window becomes an entry of the "chat memory" book."""

    def __init__(
        self,
        store: RecordStore,
        *,
        placement: MemoryPlacement | None = None,
        chat_id: str = "chat",
        ingest: bool = True,
    ) -> None:
        super().__init__(store, chat_id=chat_id, ingest=ingest)
        self.placement = placement or MemoryPlacement()
        self._recent: list[int] = []
        self._speaker = ""

    def _block_settings(self) -> RetrieverSettings:
        """The store's settings, with the chat's character name unless one is configured."""
        settings = self.store.settings
        if self._speaker and settings.character_name == DEFAULT_SETTINGS.character_name:
            return replace(settings, character_name=self._speaker)
        return settings

    def _learn_speaker(self, context: ScanContext) -> None:
        names = [m.name for m in context.chat if not m.is_user and not m.is_system and m.name]
        if names and not self._speaker:
            self._speaker = names[-1]

    def entry(self, record: Record) -> dict[str, JSONValue]:
        """The memory entry of a record: the same object every time for the same record."""
        p = self.placement
        prev, nxt = self.store.neighbours(
            record.id,
            before=self.store.settings.window_before,
            after=self.store.settings.window_after,
        )
        data: dict[str, JSONValue] = {"uid": record.id, "world": p.book, **ENTRY_TEMPLATE}
        data.update(
            key=[],
            comment=f"chat memory #{record.id}",
            content=format_block((*prev, record, *nxt), settings=self._block_settings()),
            constant=False,
            order=p.order,
            position=int(p.position),
            depth=p.depth,
            role=int(p.role),
            sticky=p.sticky,
            cooldown=p.cooldown,
            delay=p.delay,
            preventRecursion=p.prevent_recursion,
            addMemo=True,
        )
        return data

    def force_activate(self, context: ScanContext) -> Sequence[Mapping[str, JSONValue]]:
        """Force this turn's memory on (nothing when nothing clears the floor)."""
        self._learn_speaker(context)
        result = self.query(context, skip=self.placement.book)
        if result.pick is None or context.dry_run:
            return ()
        return (as_scanned(self.entry(result.pick)),)

    def entries_loaded(self, context: ScanContext, lore: LoadedLore) -> None:
        """Add this turn's memory and the recent ones to the chosen lore list."""
        self._learn_speaker(context)
        result = self.query(context, skip=self.placement.book)
        if result.pick is not None and result.pick.id not in self._recent[-1:]:
            self._recent.append(result.pick.id)
        del self._recent[: max(0, len(self._recent) - self.placement.keep_recent)]
        target = getattr(lore, f"{self.placement.lore_list}_entries")
        present = {(e.get("world"), e.get("uid")) for e in target}
        for rid in dict.fromkeys(reversed(self._recent)):
            record = self.store.record(rid)
            if record is not None and (self.placement.book, rid) not in present:
                target.append(self.entry(record))
