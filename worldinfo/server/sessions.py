"""A worker's parsed sessions, and the ``Session`` a request runs on.

``SessionCache`` keeps, per session, the row as this worker last read or committed it, its
chat as ``Message`` values, and what its config resolves to (books, settings, persona). A
request reads only the stored version (under the lock or in the snapshot of its
transaction, see ``storage.session_tx``): when it equals the cached row's version the cached
values are used, else the row is read again. The version is bumped by every committed
change on any worker, so a cached row is used only while it is exactly what is stored.

The ``Session`` itself is built fresh for every request from those values (building it is
cheap: the messages and books are shared immutable values), so a turn scans the same
whichever worker serves it and whether or not the cache had the session.
"""

from __future__ import annotations

import operator
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace

from worldinfo._js import JSONValue, mulberry32
from worldinfo.importers import Imported
from worldinfo.macros import MacroContext, MacroSettings
from worldinfo.macros.context import system_clock
from worldinfo.server.memory import PersistedMemory
from worldinfo.server.prepared import UploadKey
from worldinfo.server.storage import SessionRow
from worldinfo.server.wire import message_from, message_json, persona_from, settings_from
from worldinfo.session import Session
from worldinfo.sources.memory_mode import MemoryPlacement, MemorySource
from worldinfo.types import Book, Character, Message, Persona, Settings

GOLDEN = 0x9E3779B9
MACRO_SALT = 0x5BD1E995
"""``{{random}}`` draws from its own stream, so a macro in a book does not shift the rolls."""
MAX_SESSIONS = 256
MAX_MESSAGES = 200_000
"""The cache's bounds: sessions, and chat messages summed over them."""


def turn_seed(seed: int, turn: int) -> int:
    """The random seed of one generation of a session."""
    return (seed + turn * GOLDEN) & 0xFFFFFFFF


@dataclass(frozen=True, slots=True, kw_only=True)
class Loaded:
    """What a session's config resolves to in this worker."""

    books: dict[str, Book]
    global_names: list[str]
    character: Character | None
    key: tuple[UploadKey, ...]
    imported: tuple[Imported, ...] = ()
    """The imports the books come from (kept alive with the session's cache entry)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Parsed:
    """A stored session as values a request can use directly.

    Args:
        row: the row as stored (at ``row.version``).
        messages: ``row.chat`` as messages, one per stored object.
        loaded: the books and character of ``row.config``.
        settings: the World Info settings of ``row.config``.
        persona: the persona of ``row.config``.
    """

    row: SessionRow
    messages: tuple[Message, ...]
    loaded: Loaded
    settings: Settings
    persona: Persona


def parse(row: SessionRow, loaded: Loaded) -> Parsed:
    """The values of a row just read."""
    settings = row.config.get("settings")
    persona = row.config.get("persona")
    return Parsed(
        row=row,
        messages=tuple(message_from(m) for m in row.chat if isinstance(m, dict)),
        loaded=loaded,
        settings=settings_from(settings if isinstance(settings, dict) else {}),
        persona=persona_from(persona if isinstance(persona, dict) else {}),
    )


def chat_json(parsed: Parsed, chat: list[Message]) -> list[JSONValue]:
    """``chat`` as stored: the objects of ``parsed.row`` for messages it already had."""
    old = parsed.messages
    aligned = len(old) == len(parsed.row.chat)
    if aligned and len(chat) >= len(old) and all(map(operator.is_, old, chat)):
        # the usual turn: the chat as read plus what it appended (one C-speed pass)
        return [*parsed.row.chat, *map(message_json, chat[len(old) :])]
    out: list[JSONValue] = []
    for i, m in enumerate(chat):
        if aligned and i < len(old) and (m is old[i] or m == old[i]):
            out.append(parsed.row.chat[i])
        else:
            out.append(message_json(m))
    return out


def extra_json(session: Session, old: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """The between-turn state of the session's activation sources, as stored."""
    out = dict(old)
    if session.global_variables:
        out["global_variables"] = dict(session.global_variables)
    for source in session.sources:
        if isinstance(source, MemorySource):
            out["memory_recent"] = list(source._recent)
            out["memory_speaker"] = source._speaker
    return out


def committed(parsed: Parsed, saved: SessionRow, chat: list[Message]) -> Parsed:
    """What ``parsed`` becomes once ``saved`` is committed (its version bumped)."""
    return replace(parsed, row=replace(saved, version=saved.version + 1), messages=tuple(chat))


def build_session(parsed: Parsed, row: SessionRow) -> Session:
    """The ``Session`` a request runs on (its random streams drawn for this turn)."""
    config = row.config
    loaded = parsed.loaded
    seed = turn_seed(int(str(config.get("seed", 0))), row.turn)
    trusted = all(trust for _, trust in loaded.key)  # untrusted books' macros store nothing
    globals_ = row.extra.get("global_variables")
    return Session(
        books=loaded.books,
        settings=parsed.settings,
        global_books=loaded.global_names,
        character=loaded.character,
        persona=parsed.persona,
        chat=parsed.messages,
        chat_metadata=row.chat_metadata,
        max_context=int(str(config.get("max_context", 8192))),
        allow_wi_scan=bool(config.get("allow_wi_scan", False)),
        rng=mulberry32(seed),
        macro_context=MacroContext(clock=system_clock, random=mulberry32(seed ^ MACRO_SALT)),
        macro_settings=MacroSettings(variable_writes=trusted, global_writes=trusted),
        global_variables=globals_ if isinstance(globals_, dict) else None,
    )


def memory_source(
    store: PersistedMemory, memory: Mapping[str, JSONValue], row: SessionRow
) -> MemorySource:
    """The session's memory source over ``store``, with its recent picks restored."""
    place = memory.get("placement")
    fields = dict(place) if isinstance(place, dict) else {}
    source = MemorySource(
        store,
        placement=MemoryPlacement(**fields),
        chat_id=row.id,
        ingest=True,
    )
    recent = row.extra.get("memory_recent")
    if isinstance(recent, list):
        source._recent = [int(str(r)) for r in recent]
    speaker = row.extra.get("memory_speaker")
    if isinstance(speaker, str):
        source._speaker = speaker
    return source


class SessionCache:
    """Parsed sessions by owner and id (least recently used dropped first)."""

    def __init__(self, *, size: int = MAX_SESSIONS, messages: int = MAX_MESSAGES) -> None:
        self._items: OrderedDict[tuple[str, str], Parsed] = OrderedDict()
        self._size = size
        self._max_messages = messages
        self._messages = 0
        self._lock = threading.Lock()
        self.misses = 0

    def get(self, owner: str, session_id: str) -> Parsed | None:
        """The cached session, if any (its version is checked by the transaction)."""
        with self._lock:
            hit = self._items.get((owner, session_id))
            if hit is not None:
                self._items.move_to_end((owner, session_id))
            return hit

    def put(self, parsed: Parsed) -> None:
        """Keep ``parsed`` (replacing an older entry of the same session)."""
        key = (parsed.row.owner, parsed.row.id)
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._messages -= len(old.messages)
            self._items[key] = parsed
            self._messages += len(parsed.messages)
            while self._items and (
                len(self._items) > self._size or self._messages > self._max_messages
            ):
                _, dropped = self._items.popitem(last=False)
                self._messages -= len(dropped.messages)

    def forget(self, owner: str, session_id: str) -> None:
        """Drop a session (after an error, or when it is deleted)."""
        with self._lock:
            old = self._items.pop((owner, session_id), None)
            if old is not None:
                self._messages -= len(old.messages)
