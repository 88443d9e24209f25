"""Chats as exchanges: the retriever's unit of ingest, with a stable identity (F15, F17).

An exchange is a run of user messages followed by a run of character messages (system
messages are skipped; character messages before the first user message, such as the
greeting, belong to no exchange; a trailing user run without a reply is not finished yet).
Its identity is ``<chat id>#<ordinal>:<hash of the two texts>``: ingesting the same chat
twice is a no-op, and an edited, swiped or deleted exchange gets a different identity, so
syncing a chat deletes the old record and ingests the new one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path

from worldinfo._js import parse_json
from worldinfo._record import record
from worldinfo.sources.retriever import RecordStore
from worldinfo.sources.timestamps import TimestampError, optional_timestamp
from worldinfo.types import Message


@record
class Exchange:
    """One finished exchange of a chat."""

    source_ref: str
    user: str
    reply: str
    timestamp: datetime | None = None


def exchange_ref(chat_id: str, ordinal: int, *, user: str, reply: str) -> str:
    """Return the identity of an exchange (see the module docstring)."""
    digest = hashlib.sha256(f"{user}\x00{reply}".encode()).hexdigest()[:16]
    return f"{chat_id}#{ordinal}:{digest}"


def exchanges(
    messages: Sequence[Message],
    *,
    chat_id: str,
    dates: Sequence[datetime | None] | None = None,
) -> list[Exchange]:
    """Return the finished exchanges of a chat, oldest first.

    Args:
        messages: the chat, oldest first.
        chat_id: the namespace of the identities (one per chat).
        dates: the messages' timestamps, parallel to ``messages`` (``st_chat_dates``); an
            exchange's timestamp is its first dated user message's, else its first dated
            reply's. The identity does not depend on dates.

    Returns:
        The exchanges, user runs and reply runs joined with line feeds.
    """
    out: list[Exchange] = []
    users: list[str] = []
    replies: list[str] = []
    stamps: list[datetime | None] = [None, None]  # first dated user message, reply

    def flush() -> None:
        if users and replies:
            user, reply = "\n".join(users), "\n".join(replies)
            ref = exchange_ref(chat_id, len(out), user=user, reply=reply)
            when = stamps[0] or stamps[1]
            out.append(Exchange(source_ref=ref, user=user, reply=reply, timestamp=when))
        users.clear()
        replies.clear()
        stamps[:] = [None, None]

    for n, msg in enumerate(messages):
        if msg.is_system:
            continue
        when = dates[n] if dates is not None and n < len(dates) else None
        if msg.is_user:
            if replies:
                flush()
            users.append(msg.mes)
            stamps[0] = stamps[0] or when
        elif users:
            replies.append(msg.mes)
            stamps[1] = stamps[1] or when
    if replies:
        flush()
    return out


def last_turn(messages: Sequence[Message]) -> tuple[str, str]:
    """Return (newest user message, the character's reply just before it) of a chat."""
    visible = [m for m in messages if not m.is_system]
    for i in range(len(visible) - 1, -1, -1):
        if visible[i].is_user:
            before = (m.mes for m in reversed(visible[:i]) if not m.is_user)
            return visible[i].mes, next(before, "")
    return "", ""


MAX_CHAT_BYTES = 64 * 1024 * 1024
"""Largest ``.jsonl`` chat read for memory (as ``importers.Limits.max_file_bytes``)."""
MAX_CHAT_LINES = 1_000_000
"""Most lines read from one chat (as ``importers.Limits.max_chat_lines``)."""


def read_chat_text(path: str | Path, *, max_bytes: int = MAX_CHAT_BYTES) -> str:
    """The text of a chat file, refused before reading when it is over ``max_bytes``.

    Raises:
        OSError: the file cannot be read.
        ValueError: it is too large or not UTF-8 (the message names the limit).
    """
    chat = Path(path)
    size = chat.stat().st_size
    if size > max_bytes:
        raise ValueError(
            f"{size} bytes is over the limit of {max_bytes} (max_bytes; "
            "raise it to read a larger chat)"
        )
    try:
        return chat.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc})") from None


def _chat_lines(text: str, *, max_lines: int) -> Iterator[tuple[int, object]]:
    """``(line number, parsed JSON)`` of each non-blank line, each within the JSON bounds."""
    for n, line in enumerate(text.splitlines(), 1):
        if n > max_lines:
            raise ValueError(
                f"more than {max_lines} lines (max_lines; raise it to read a longer chat)"
            )
        if line.strip():
            try:
                yield n, parse_json(line)
            except ValueError as exc:
                raise ValueError(f"line {n}: {exc}") from None


def parse_st_chat(
    text: str, *, max_lines: int = MAX_CHAT_LINES
) -> tuple[dict[str, object], list[Message]]:
    """Parse a SillyTavern ``.jsonl`` chat: (header line, messages).

    Args:
        text: the file's text (one JSON object per line; the first is the header).
        max_lines: the most lines read (each line is bounded by ``_js.JSONBounds``).

    Returns:
        The header object (``{}`` if absent) and the messages in file order.

    Raises:
        ValueError: a line is not a JSON object, or a bound is exceeded.
    """
    header: dict[str, object] = {}
    messages: list[Message] = []
    for n, obj in _chat_lines(text, max_lines=max_lines):
        if not isinstance(obj, dict):
            raise ValueError(f"line {n}: not a JSON object")  # noqa: TRY004 (bad content)
        if "mes" not in obj:
            if n == 1:
                header = obj
            continue
        messages.append(
            Message(
                name=str(obj.get("name") or ""),
                mes=str(obj.get("mes") or ""),
                is_user=bool(obj.get("is_user")),
                is_system=bool(obj.get("is_system")),
            )
        )
    return header, messages


def st_chat_dates(text: str, *, max_lines: int = MAX_CHAT_LINES) -> list[datetime | None]:
    """The ``send_date`` of each message of a SillyTavern ``.jsonl`` chat (``None`` if absent).

    Parallel to the messages of ``parse_st_chat``. Values in no known form
    (``timestamps.parse_timestamp``) give ``None``: ``send_date`` formats have changed
    between SillyTavern versions, and a date is optional.

    Args:
        text: the file's text.
        max_lines: the most lines read.

    Returns:
        One entry per message line.
    """
    out: list[datetime | None] = []
    for _, obj in _chat_lines(text, max_lines=max_lines):
        if not isinstance(obj, dict) or "mes" not in obj:
            continue
        try:
            out.append(optional_timestamp(obj.get("send_date")))
        except TimestampError:
            out.append(None)
    return out


INGEST_CHUNK = 500
"""Exchanges ``ChatSync`` commits per transaction: few commits, a short hold of the lock."""


class ChatSync:
    """Keeps a store in step with one chat: ingest new exchanges, delete vanished ones.

    With ``adopt`` (the default), the first sync looks for the chat's first exchange in
    the store under another chat id (e.g. the file stem ``memory ingest`` used) and, if
    found, continues under that id, so a live session does not ingest the chat twice.
    """

    def __init__(self, store: RecordStore, *, chat_id: str, adopt: bool = True) -> None:
        self.store = store
        self.chat_id = chat_id
        self.adopt = adopt
        self._known: list[str] | None = None

    def _start(
        self, messages: Sequence[Message], dates: Sequence[datetime | None] | None = None
    ) -> list[Exchange]:
        wanted = exchanges(messages, chat_id=self.chat_id, dates=dates)
        refs = list(self.store.source_refs())
        if self.adopt and wanted:
            first = wanted[0].source_ref
            suffix = first[len(self.chat_id) :]
            owners = sorted(r[: -len(suffix)] for r in refs if r.endswith(suffix))
            if owners and self.chat_id not in owners:
                self.chat_id = owners[0]
                wanted = exchanges(messages, chat_id=self.chat_id, dates=dates)
        prefix = f"{self.chat_id}#"
        self._known = sorted((r for r in refs if r.startswith(prefix)), key=_ordinal)
        return wanted

    def sync(
        self,
        messages: Sequence[Message],
        *,
        progress: Callable[[int, int], None] | None = None,
        dates: Sequence[datetime | None] | None = None,
    ) -> tuple[int, int]:
        """Bring the store in line with ``messages``; return (ingested, deleted).

        ``dates`` (parallel to ``messages``) date the new records (see ``exchanges``).
        """
        if self._known is None:
            return self.apply(self._start(messages, dates), progress=progress)
        wanted = exchanges(messages, chat_id=self.chat_id, dates=dates)
        return self.apply(wanted, progress=progress)

    def apply(
        self, wanted: Sequence[Exchange], *, progress: Callable[[int, int], None] | None = None
    ) -> tuple[int, int]:
        """Bring the store in line with the exchange list ``wanted``; (ingested, deleted).

        Args:
            wanted: the chat's exchanges, oldest first.
            progress: called as ``progress(done, total)`` every 100 exchanges examined.

        New exchanges are stored ``INGEST_CHUNK`` at a time, each chunk in one
        ``ingest_many`` call (one transaction on the SQLite store): a process killed
        meanwhile keeps every chunk committed before, and none of the chunk in flight.
        """
        if self._known is None:
            prefix = f"{self.chat_id}#"
            known = (r for r in self.store.source_refs() if r.startswith(prefix))
            self._known = sorted(known, key=_ordinal)
        refs = [e.source_ref for e in wanted]
        same = 0
        for old, new in zip(self._known, refs, strict=False):
            if old != new:
                break
            same += 1
        keep = set(refs)
        deleted = sum(self.store.delete(r) for r in self._known[same:] if r not in keep)
        ingested = 0
        todo = wanted[same:]
        for start in range(0, len(todo), INGEST_CHUNK):
            chunk = todo[start : start + INGEST_CHUNK]
            ingested += sum(rec is not None for rec in self.store.ingest_many(chunk))
            done = same + start + len(chunk)
            for n in range(((same + start) // 100 + 1) * 100, done + 1, 100):
                if progress is not None:
                    progress(n, len(wanted))
        self._known = refs
        return ingested, deleted


def _ordinal(ref: str) -> int:
    try:
        return int(ref.rpartition("#")[2].partition(":")[0])
    except ValueError:
        return -1
