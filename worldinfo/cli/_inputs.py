"""Shared by the commands that run a scan: reading books, cards and chats, and settings."""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from worldinfo._js import JSONValue, mulberry32, parse_json
from worldinfo.cli._clock import ClockError, add_clock_options, clock_from
from worldinfo.macros import MacroContext
from worldinfo.session import Session
from worldinfo.types import Book, Character, Message, Persona, Settings

if TYPE_CHECKING:
    from worldinfo.importers import Limits

SETTING_FLAGS = {
    "depth": int,
    "budget": int,
    "budget_cap": int,
    "min_activations": int,
    "min_activations_depth_max": int,
    "max_recursion_steps": int,
    "character_strategy": int,
}
SWITCHES = ("recursive", "case_sensitive", "match_whole_words", "use_group_scoring")


class InputError(Exception):
    """A file given on the command line could not be used (the message says why)."""


@dataclass(slots=True)
class Inputs:
    """Everything read from the command line's files."""

    books: dict[str, Book] = field(default_factory=dict)
    global_names: list[str] = field(default_factory=list)
    character: Character | None = None
    chat: list[Message] = field(default_factory=list)
    chat_metadata: dict[str, JSONValue] = field(default_factory=dict)


def _limit_setting(text: str) -> str:
    from worldinfo.importers import Limits

    try:
        Limits.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_limit_option(p: argparse.ArgumentParser) -> None:
    """``--limit NAME=N`` (repeatable): change one of the input bounds ``importers.Limits``."""
    p.add_argument(
        "--limit",
        action="append",
        default=[],
        type=_limit_setting,
        metavar="NAME=N",
        help="change an input bound, e.g. max_book_entries=100000 (see importers.Limits)",
    )


def limits_from(args: argparse.Namespace) -> Limits:
    """The ``importers.Limits`` the ``--limit`` options ask for."""
    from worldinfo.importers import Limits

    return Limits.parse(",".join(getattr(args, "limit", None) or ()))


def add_scan_options(p: argparse.ArgumentParser) -> None:
    """Options shared by ``scan``, ``explain`` and ``demo``: chat, settings, scan type."""
    p.add_argument(
        "--chat", metavar="CHAT", help="SillyTavern .jsonl chat or a JSON list of messages"
    )
    p.add_argument("--settings", metavar="JSON", help="settings file (the 13 World Info settings)")
    for name, typ in SETTING_FLAGS.items():
        p.add_argument(f"--{name.replace('_', '-')}", type=typ, dest=name, default=None)
    for name in SWITCHES:
        flag = name.replace("_", "-")
        p.add_argument(f"--{flag}", dest=name, action="store_true", default=None)
        p.add_argument(f"--no-{flag}", dest=name, action="store_false")
    p.add_argument("--max-context", type=int, default=8192, help="context size (default 8192)")
    p.add_argument("--type", default="normal", help="generation type (default normal)")
    p.add_argument("--user", default="User", help="the {{user}} name (default User)")
    p.add_argument("--seed", type=int, default=None, help="seed for probability rolls")
    p.add_argument(
        "--untrusted",
        action="store_true",
        help="imported entries are untrusted: no constant, @@activate, sticky, ignoreBudget, "
        "system role at depth 0, regex or catch-all keys (worldinfo.trust.TrustPolicy), "
        "and their {{setvar}}-family macros store no variables",
    )
    add_limit_option(p)
    add_clock_options(p)  # --now, --tz: what the macro evaluator's time macros see


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
    inputs = Inputs()
    for path in paths:
        try:
            imported = importers.load(path, trust=trust, limits=limits)
        except importers.LorebookImportError as exc:
            raise InputError(str(exc)) from exc
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or exc}") from exc
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
    try:
        if Path(chat).stat().st_size <= limits.max_file_bytes:
            data = parse_json(Path(chat).read_bytes(), bounds=limits.json_bounds)
    except OSError as exc:
        raise InputError(f"{chat}: {exc.strerror or exc}") from exc
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, list):
        return _read_messages(data, chat), {}
    try:
        imported = importers.load(chat, trust=trust, limits=limits)
    except importers.LorebookImportError as exc:
        raise InputError(str(exc)) from exc
    if not imported.chat and imported.format not in ("st-chat", "tavernai-chat"):
        raise InputError(f"{chat}: not a chat (read as {imported.format})")
    return list(imported.chat), dict(imported.chat_metadata)


def settings_from(args: argparse.Namespace) -> Settings:
    """The settings file (if any) overridden by individual flags."""
    settings = Settings()
    if getattr(args, "settings", None):
        try:
            data = json.loads(Path(args.settings).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"{args.settings}: {exc}") from exc
        if not isinstance(data, dict):
            raise InputError(f"{args.settings}: expected a JSON object of settings")
        settings = Settings.from_json(data)
    changes = {
        k: getattr(args, k)
        for k in (*SETTING_FLAGS, *SWITCHES)
        if getattr(args, k, None) is not None
    }
    return replace(settings, **changes)


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
    except ClockError as exc:
        raise InputError(str(exc)) from exc
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
            clock=clock, tz=tz, random=mulberry32(seed + 1) if seed is not None else _random()
        ),
    )


def _random() -> Callable[[], float]:
    return random.Random().random
