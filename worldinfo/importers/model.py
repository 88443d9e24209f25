"""The result of one import."""

from __future__ import annotations

from collections.abc import Mapping

from worldinfo import Book, Character, Message
from worldinfo._record import field, record
from worldinfo.importers.errors import Problem
from worldinfo.interchange import JSONValue

FORMATS = (
    "st-world",
    "card-v1",
    "card-v2",
    "card-v3",
    "character-book",
    "lorebook-v3",
    "novelai-lorebook",
    "novelai-story",
    "agnai-memory",
    "risu-lorebook",
    "kobold-story",
    "st-chat",
    "tavernai-chat",
)
"""Every value ``Imported.format`` can take."""

CARRIERS = ("json", "png", "charx", "jsonl")


@record
class Imported:
    """Everything one file contributes to a scan.

    Args:
        format: what the content was read as (one of ``FORMATS``).
        books: the lorebooks it holds (a card: its converted ``character_book``).
        character: card fields the engine scans, for character cards.
        chat: messages of a chat file, in file order.
        chat_metadata: a SillyTavern chat's ``chat_metadata`` (``world_info``,
            ``note_prompt`` ..., ``timedWorldInfo``), unknown keys kept.
        source: the file path, or ``<bytes>``.
        carrier: ``json``, ``png``, ``charx`` or ``jsonl``.
        extracted_from: the PNG text chunk (``ccv3``, ``chara``, ``naidata``) or zip member
            the content came from; ``None`` for plain files.
        card: the card JSON object as read (for lossless re-export), else ``None``.
        chat_header: the chat header line without ``chat_metadata``.
        warnings: what is odd about the file but did not stop the import (a PNG chunk with
            a bad CRC), each with its JSON path.
    """

    format: str
    books: tuple[Book, ...] = ()
    character: Character | None = None
    chat: tuple[Message, ...] = ()
    chat_metadata: Mapping[str, JSONValue] = field(default_factory=dict)
    source: str = "<bytes>"
    carrier: str = "json"
    extracted_from: str | None = None
    card: Mapping[str, JSONValue] | None = None
    chat_header: Mapping[str, JSONValue] = field(default_factory=dict)
    warnings: tuple[Problem, ...] = ()

    @property
    def book(self) -> Book | None:
        """The first book, if any."""
        return self.books[0] if self.books else None
