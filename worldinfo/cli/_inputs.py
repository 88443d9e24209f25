"""Shared by the commands that run a scan: reading books, cards and chats into a ``Session``.

The options they share, and the settings and input limits those give, are ``_scan_options``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence

from worldinfo._js import JSONValue, mulberry32, parse_json
from worldinfo._lazy import system_random
from worldinfo._record import field, record
from worldinfo.cli._clock import ClockError, clock_from
from worldinfo.cli._conventions import (
    STDIN_NAME,
    STDIO,
    UsageError,
    cannot_read,
    check_stdin_once,
    input_source,
    read_input,
)
from worldinfo.cli._scan_options import limits_from, settings_from
from worldinfo.macros import MacroContext
from worldinfo.session import Session
from worldinfo.types import Book, Character, Message, Persona

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from worldinfo.importers import Limits


class InputError(Exception):
    """A file given on the command line could not be used (the message says why)."""


class NotABook(InputError):
    """A chat was given where a book or card is expected; the message names the options
    that take a chat."""

    def __init__(self, path: str, *, what: str) -> None:
        super().__init__(
            f"{path}: a chat ({what}), not a lorebook or card; import converts books and "
            "cards: a chat goes to scan --chat (or explain --chat, replay --chat, memory ingest)"
        )


def is_message_list(data: JSONValue) -> bool:
    """Is ``data`` a chat as ``--chat`` reads a JSON list: each item a string, or an object
    with a ``mes`` string (SillyTavern's message field)?"""
    return (
        isinstance(data, list)
        and bool(data)
        and all(
            isinstance(m, str) or isinstance(m, dict) and isinstance(m.get("mes"), str)
            for m in data
        )
    )


@record(frozen=False, kw_only=False)
class Inputs:
    """Everything read from the command line's files."""

    books: dict[str, Book] = field(default_factory=dict)
    global_names: list[str] = field(default_factory=list)
    character: Character | None = None
    chat: list[Message] = field(default_factory=list)
    chat_metadata: dict[str, JSONValue] = field(default_factory=dict)


def _read_messages(data: JSONValue, path: str) -> list[Message]:
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of messages")
    out = []
    for i, m in enumerate(data):
        if isinstance(m, str):
            out.append(
                Message(name="User" if i % 2 == 0 else "Assistant", mes=m, is_user=i % 2 == 0)
            )
        elif isinstance(m, dict) and isinstance(m.get("mes", ""), str):
            out.append(
                Message(
                    name=str(m.get("name", "")),
                    mes=m.get("mes", ""),
                    is_user=bool(m.get("is_user")),
                    is_system=bool(m.get("is_system")),
                )
            )
        else:
            raise InputError(f"{path}: $[{i}] is not a message object")
    return out


def read_inputs(
    paths: Sequence[str],
    *,
    chat: str | None,
    trust: bool = True,
    limits: Limits | None = None,
) -> Inputs:
    """Read books/cards (any importable format) and the chat (within ``limits``).

    World files become globally selected books; a card becomes the character with its
    embedded book bound to it; a chat file brings its messages and ``chat_metadata``.
    """
    from worldinfo import importers

    limits = limits or importers.DEFAULT_LIMITS
    check_stdin_once([*paths, chat])
    inputs = Inputs()
    for path in paths:
        try:
            src, name = input_source(path)
            imported = importers.load(src, name=name, trust=trust, limits=limits)
        except importers.LorebookImportError as exc:
            raise InputError(str(exc)) from exc
        except OSError as exc:
            raise InputError(cannot_read(path, exc)) from exc
        for book in imported.books:
            inputs.books[book.name] = book
        if imported.character is not None:
            inputs.character = imported.character
        else:
            inputs.global_names.extend(b.name for b in imported.books)
        if imported.chat:
            inputs.chat = list(imported.chat)
            inputs.chat_metadata = dict(imported.chat_metadata)
    if chat:
        inputs.chat, inputs.chat_metadata = read_chat(chat, trust=trust, limits=limits)
    return inputs


def read_chat(
    chat: str, *, trust: bool = True, limits: Limits | None = None
) -> tuple[list[Message], dict[str, JSONValue]]:
    """Read a chat: a JSON list of messages (or of strings), or any chat ``importers`` reads
    (SillyTavern ``.jsonl``, TavernAI JSON). Returns the messages and the chat metadata.
    Files over ``limits`` are refused by ``importers.load`` (its message names the limit)."""
    from worldinfo import importers

    limits = limits or importers.DEFAULT_LIMITS
    data: JSONValue = None
    raw = b""
    try:
        if chat == STDIO or os.stat(chat).st_size <= limits.max_file_bytes:
            raw = read_input(chat, limit=limits.max_file_bytes)
            data = parse_json(raw, bounds=limits.json_bounds)
    except OSError as exc:
        raise InputError(cannot_read(chat, exc)) from exc
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, list):
        return _read_messages(data, chat), {}
    try:
        src: str | bytes = raw if chat == STDIO else chat
        imported = importers.load(
            src, name=STDIN_NAME if chat == STDIO else None, trust=trust, limits=limits
        )
    except importers.LorebookImportError as exc:
        raise InputError(str(exc)) from exc
    if not imported.chat and imported.format not in ("st-chat", "tavernai-chat"):
        raise InputError(f"{chat}: not a chat (read as {imported.format})")
    return list(imported.chat), dict(imported.chat_metadata)


def open_session(args: argparse.Namespace) -> Session:
    """Read ``args.books`` and ``args.chat`` and build the session (raises ``InputError``)."""
    limits = limits_from(args)
    inputs = read_inputs(args.books, chat=args.chat, trust=not args.untrusted, limits=limits)
    return build_session(inputs, args)


def build_session(inputs: Inputs, args: argparse.Namespace) -> Session:
    """A ``Session`` over the inputs with the command line's settings."""
    seed = getattr(args, "seed", None)
    try:
        clock, tz = clock_from(args)
    except ClockError as exc:  # a bad --now or --tz is a usage error (exit 2), as in macros
        raise UsageError(str(exc)) from exc
    return Session(
        books=inputs.books,
        settings=settings_from(args),
        global_books=inputs.global_names,
        character=inputs.character,
        persona=Persona(name=getattr(args, "user", "User")),
        chat=inputs.chat,
        chat_metadata=inputs.chat_metadata,
        max_context=getattr(args, "max_context", 8192),
        rng=mulberry32(seed) if seed is not None else None,
        macro_context=MacroContext(
            clock=clock, tz=tz, random=mulberry32(seed + 1) if seed is not None else system_random()
        ),
    )


def where_scan_stopped(books: Mapping[str, Book], error: str) -> list[str]:
    """``FILE: book 'X', entry uid N, $.entries.N.field: why`` for each value of ``books``
    that makes SillyTavern's scan stop with ``error`` (see ``lint.scan_stoppers``)."""
    from worldinfo.lint import scan_stoppers
    from worldinfo.lint.fatal import JS_ERRORS

    files = {
        (b.name, e.uid): e.origin.file for b in books.values() for e in b.entries or () if e.origin
    }
    out = []
    for f in scan_stoppers(list(books.values())):
        if JS_ERRORS.get(f.code) != error:
            continue
        file = files.get((f.book, f.uid), "")
        place = f"{file}: " if file else ""
        out.append(f"{place}book {f.book!r}, entry uid {f.uid}, {f.json_path}: {f.message}")
    return out
