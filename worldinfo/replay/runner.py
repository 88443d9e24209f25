"""Replay a chat turn by turn through a ``Session``, as SillyTavern would have run it.

A turn is the scan SillyTavern ran before a generated message: every message after the
first that is not the user's (or is an impersonation) and is not a hidden system message,
and once more at the end when the chat ends with the user's message (the reply not yet
written). Before each turn the session holds exactly the messages before it; timed effects
(sticky, cooldown, delay) carry from turn to turn in the session's chat metadata.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from worldinfo import _js
from worldinfo._record import record
from worldinfo.engine.budget import compute_budget
from worldinfo.replay.turns import TurnRecord, read_turn
from worldinfo.session import Session
from worldinfo.types import GENERATION_TYPES, Book, Message

Progress = Callable[[int, int], None]
"""Called after each turn with ``(turns done, turns in the chat)``."""


@record
class EntryInfo:
    """An entry of the replayed books, for reports.

    Args:
        key: the entry key (``world.uid``).
        world: the book name.
        uid: the entry's uid.
        title: its ``comment``.
        enabled: not disabled.
        constant: marked constant.
    """

    key: str
    world: str
    uid: str
    title: str
    enabled: bool
    constant: bool


def turn_points(
    messages: Sequence[Message], types: Sequence[str | None] = ()
) -> list[tuple[int, str]]:
    """Where the turns of a chat are: ``(message index, generation type)``.

    Args:
        messages: the chat, oldest first.
        types: a generation type per message (``None``: ``normal``, or ``impersonate`` for
            nothing); unknown types scan as ``normal``.

    Returns:
        One pair per turn; the index is the message the scan came before (``len(messages)``
        for the pending reply at the end).
    """
    out: list[tuple[int, str]] = []
    for i, m in enumerate(messages):
        given = types[i] if i < len(types) else None
        kind = given if given in GENERATION_TYPES else None
        if i == 0 or m.is_system:
            continue
        if not m.is_user or kind == "impersonate":
            out.append((i, kind or "normal"))
    if messages and messages[-1].is_user and not messages[-1].is_system:
        out.append((len(messages), "normal"))
    return out


def replay_chat(
    session: Session,
    messages: Sequence[Message],
    *,
    chat: str = "",
    types: Sequence[str | None] = (),
    default_type: str = "normal",
    first_index: int = 0,
    progress: Progress | None = None,
) -> list[TurnRecord]:
    """Play ``messages`` through ``session`` and record every turn.

    Args:
        session: a session over the books, settings and metadata, with an empty chat.
        messages: the chat to replay, oldest first.
        chat: the chat's label in the records.
        types: generation types per message (see ``turn_points``).
        default_type: the type of turns the chat says nothing about.
        first_index: the number of the first turn (for several chats in one replay).
        progress: called after each turn.

    Returns:
        The turn records, in chat order.

    Raises:
        ValueError: the session's chat is not empty.
    """
    if session.chat:
        raise ValueError("replay_chat needs a session with an empty chat")
    points = turn_points(messages, types)
    budget = compute_budget(session.settings, session.max_context)
    count = _Memo(session.count_tokens)
    out: list[TurnRecord] = []
    for at, kind in points:
        session.append(messages[len(session.chat) : at])
        if kind == "normal":
            kind = default_type
        result = session.generate(kind, trace=True)
        if len(session.chat) < at:  # a regenerate took the last reply off: the chat has it
            session.append(messages[len(session.chat) : at])
        out.append(
            read_turn(
                result,
                index=first_index + len(out),
                chat=chat,
                message=at,
                type=kind,
                budget=budget,
                settings=session.settings,
                count_tokens=count,
                substitute=session.macros,
            )
        )
        if progress is not None:
            progress(len(out), len(points))
    return out


class _Memo:
    """A token counter remembering the counts of recent texts: the same contents fire turn
    after turn, and counting long non-ASCII text is slow. Bounded (cleared past 4,096)."""

    def __init__(self, count: Callable[[str], int]) -> None:
        self._count = count
        self._seen: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        n = self._seen.get(text)
        if n is None:
            if len(self._seen) >= 4096:
                self._seen.clear()
            n = self._seen[text] = self._count(text)
        return n


def catalog(books: dict[str, Book], names: Sequence[str]) -> list[EntryInfo]:
    """Every entry of the books ``names`` (in that order, then book order) for reports."""
    out: list[EntryInfo] = []
    seen: set[str] = set()
    for name in names:
        book = books.get(name)
        if book is None:
            continue
        for i, e in enumerate(book.entries or ()):
            uid = _js.to_string(e.data.get("uid", i))
            key = f"{name}.{uid}"
            if key in seen:
                continue
            seen.add(key)
            out.append(
                EntryInfo(
                    key=key,
                    world=name,
                    uid=uid,
                    title=e.comment,
                    enabled=not _js.loose_eq_true(e.data.get("disable")),
                    constant=_js.truthy(e.data.get("constant")),
                )
            )
    return out
