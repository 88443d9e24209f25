"""Which books and entries a session's scan uses: its selection, in gathering order.

A session binds books globally, to the character (its main book and extra books), to the
chat (``chat_metadata["world_info"]``) and to the persona; ``book_selection`` gathers those
names, ``names_in_play`` orders them, ``entries_in_play`` lists the entry objects the scan
would load (for forcing entries on by ``(world, uid)``), and ``character_identity`` is what
the character filters compare.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from worldinfo._js import JSONValue
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.engine.gathering import BookSelection, sorted_entries
from worldinfo.engine.state import CharacterIdentity
from worldinfo.trust import TrustPolicy
from worldinfo.types import Book, Character, Persona, Settings


def book_selection(
    global_books: Sequence[str],
    *,
    character: Character | None,
    chat_metadata: Mapping[str, JSONValue],
    persona: Persona,
) -> BookSelection:
    """The books bound globally, to the character, the chat and the persona."""
    char_names: list[str] = []
    if character is not None:
        if character.book:
            char_names.append(character.book)
        char_names.extend(character.extra_books)
    chat_name = chat_metadata.get("world_info")
    return BookSelection(
        global_names=tuple(global_books),
        character_names=tuple(char_names),
        chat_name=chat_name if isinstance(chat_name, str) else None,
        persona_name=persona.book,
    )


def names_in_play(selection: BookSelection) -> list[str]:
    """Book names in play (before the skip rules), in gathering order, each once."""
    s = selection
    names = list(s.global_names) + list(s.character_names)
    names += [n for n in (s.chat_name, s.persona_name) if n]
    return list(dict.fromkeys(names))


def entries_in_play(
    books: Mapping[str, Book],
    selection: BookSelection,
    *,
    settings: Settings,
    trust: TrustPolicy,
    cache: ScanCache | None,
    keys: Collection[str],
) -> Sequence[Mapping[str, JSONValue]]:
    """The sorted entry objects of the selected books (hashed), from ``cache`` when it has
    them; with a plan, only those whose ``"world.uid"`` is one of ``keys`` (the rest are never
    hashed)."""
    plan = None
    if cache is not None:
        plan = cache.plan(books, selection, settings, trust=trust)
    if plan is not None:
        positions = sorted(p for key in keys for p in plan.positions_of_key(key))
        for pos in positions:
            plan.ensure_hash(pos)
        return [plan.entries[p] for p in positions]
    return sorted_entries(
        books,
        selection,
        strategy=settings.character_strategy,
        trust=trust,
    )


def character_identity(character: Character | None) -> CharacterIdentity | None:
    """What the character filters compare (file name, avatar, tags), or ``None``."""
    c = character
    if c is None:
        return None
    return CharacterIdentity(file_name=c.file_name, avatar=c.avatar, tags=tuple(c.tags))
