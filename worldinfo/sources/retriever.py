"""The chat-history retriever (spec retriever.md F1-F19): Z-Waif's "based RAG" without its bugs.

No embedding model, no randomness: word values come from the current counts, keywords are
picked from the new user message and the character's previous reply, records are scored by
matched keywords minus a length penalty, and the best record above the floor is returned
with its neighbours as a memory block -- or nothing at all (F14, F19).

``Retriever`` holds the query logic over a ``RetrieverIndex``; the stores
(``store_memory.MemoryStore``, ``store_sqlite.SqliteStore``) add ingest, delete and
persistence. Query results are a pure function of the stored state (F19).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from datetime import date, datetime
from typing import Protocol

from worldinfo.sources.ranked_view import RankedView
from worldinfo.sources.retrieval import Hit, Retrieval, assemble, format_block, ranked_retrieval
from worldinfo.sources.retriever_index import Record, RetrieverIndex
from worldinfo.sources.retriever_keywords import Keyword, select_keywords
from worldinfo.sources.retriever_scoring import score_indexed, score_reference
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.retriever_tokenize import tokenize

log = logging.getLogger(__name__)

SYSTEM_MARKERS = ("[System D]",)
"""User texts with these markers are system exchanges and are never ingested (F15)."""


def is_system_exchange(user: str) -> bool:
    """Whether an exchange is a system exchange that is never ingested (F15)."""
    return any(map(user.__contains__, SYSTEM_MARKERS))


class ExchangeData(Protocol):
    """One finished exchange to ingest (``retriever_chat.Exchange`` is one)."""

    @property
    def source_ref(self) -> str:
        """The exchange's identity; a second ingest with it is a no-op."""
        ...

    @property
    def user(self) -> str:
        """The user's text."""
        ...

    @property
    def reply(self) -> str:
        """The character's reply."""
        ...

    @property
    def timestamp(self) -> object:
        """When it happened (any form of ``timestamps.parse_timestamp``), or ``None``."""
        ...


class RecordStore(Protocol):
    """What every store offers (the contract test suite runs against each)."""

    settings: RetrieverSettings

    def ingest(
        self, user: str, reply: str, *, source_ref: str, timestamp: object = None
    ) -> Record | None:
        """Store one finished exchange; ``None`` if skipped (system or already present)."""
        ...

    def ingest_many(self, exchanges: Iterable[ExchangeData]) -> list[Record | None]:
        """Store many exchanges at once, all or none; one result per exchange, in order."""
        ...

    def delete(self, source_ref: str) -> bool:
        """Remove the record of that exchange (no-op if absent); whether one was removed."""
        ...

    def retrieve(
        self,
        message: str,
        previous_reply: str = "",
        *,
        lore: frozenset[str] = frozenset(),
        top: int = 1,
        reference: bool = False,
        now: datetime | date | None = None,
    ) -> Retrieval:
        """Query the store (see ``Retriever.retrieve``)."""
        ...

    def records(self) -> Iterator[Record]:
        """Live records, oldest first."""
        ...

    def get(self, source_ref: str) -> Record | None:
        """The record of an exchange, if stored."""
        ...

    def source_refs(self) -> Iterator[str]:
        """Identities of the stored exchanges."""
        ...

    def record(self, record_id: int) -> Record | None:
        """A live record by id."""
        ...

    def neighbours(
        self, record_id: int, *, before: int, after: int
    ) -> tuple[list[Record], list[Record]]:
        """Live records just before and just after a record (F11)."""
        ...

    def is_stop(self, word: str) -> bool:
        """Whether a word is a stop-word under the current counts (unknown words are not)."""
        ...

    def tokens(self, text: str) -> list[str]:
        """Tokenise with the store's tokeniser mode."""
        ...

    def keywords(
        self, message: str, previous_reply: str = "", *, lore: frozenset[str] = frozenset()
    ) -> tuple[Keyword, ...]:
        """Select the query's keywords (F6-F9)."""
        ...

    def __len__(self) -> int: ...

    def close(self) -> None:
        """Release resources (a no-op for the in-memory store)."""
        ...


class Retriever:
    """Query logic shared by the stores."""

    def __init__(self, *, settings: RetrieverSettings | None = None) -> None:
        self.settings = settings or RetrieverSettings()
        self.index = RetrieverIndex(settings=self.settings)
        self._view: RankedView | None = None

    def __len__(self) -> int:
        return len(self.index)

    def records(self) -> Iterator[Record]:
        """Live records, oldest first."""
        return iter(self.index)

    def get(self, source_ref: str) -> Record | None:
        """The record of an exchange, if stored."""
        rid = self.index.by_ref.get(source_ref)
        return None if rid is None else self.index.records[rid]

    def source_refs(self) -> Iterator[str]:
        """Identities of the stored exchanges."""
        return iter(list(self.index.by_ref))

    def record(self, record_id: int) -> Record | None:
        """A live record by id."""
        return self.index.records.get(record_id)

    def neighbours(
        self, record_id: int, *, before: int, after: int
    ) -> tuple[list[Record], list[Record]]:
        """Live records just before and just after a record (F11)."""
        return self.index.neighbours(record_id, before=before, after=after)

    def is_stop(self, word: str) -> bool:
        """Whether a word is a stop-word under the current counts (unknown words are not)."""
        wid = self.index.word_ids.get(word)
        return wid is not None and self.index.is_stop(wid)

    def tokens(self, text: str) -> list[str]:
        """Tokenise ``text`` with this store's tokeniser mode."""
        return tokenize(text, punctuation=self.settings.punctuation)

    def keywords(
        self, message: str, previous_reply: str = "", *, lore: frozenset[str] = frozenset()
    ) -> tuple[Keyword, ...]:
        """Select the query's keywords (F6-F9)."""
        return select_keywords(
            self.tokens(message),
            self.tokens(previous_reply),
            lookup=self.index.lookup,
            total=self.index.total,
            lore=lore,
            settings=self.settings,
        )

    def retrieve(
        self,
        message: str,
        previous_reply: str = "",
        *,
        lore: frozenset[str] = frozenset(),
        top: int = 1,
        reference: bool = False,
        now: datetime | date | None = None,
    ) -> Retrieval:
        """Retrieve the memory for a new user message (F19).

        Args:
            message: the new user message.
            previous_reply: the character's reply just before it (``""`` = none).
            lore: lore tokens (``retriever_tokenize.lore_tokens`` of the books' keys).
            top: how many ranked candidates to report (the pick is always the first).
            reference: use the full-scan reference path instead of the inverted index (ranked
                mode: per-record data computed afresh instead of the cached view).
            now: the present, for relative dates ("yesterday") in the ranked mode
                (default: the newest stored exchange's timestamp).

        Returns:
            The keywords, the pick and its window and block (empty when nothing qualifies).

        Raises:
            TypeError: ``message`` or ``previous_reply`` is not a string.
        """
        for name, value in (("message", message), ("previous_reply", previous_reply)):
            if not isinstance(value, str):
                raise TypeError(
                    f"retrieve(): {name} must be the text to search for (a str), "
                    f"not {type(value).__name__}"
                )
        if self.settings.ranking == "ranked":
            if self._view is None or self._view.stemming != self.settings.stemming:
                self._view = RankedView(self.index, stemming=self.settings.stemming)
            fresh = RankedView(self.index, stemming=self.settings.stemming)
            return ranked_retrieval(
                self.index,
                fresh if reference else self._view,
                message,
                previous_reply,
                lore=lore,
                top=top,
                now=now,
                settings=self.settings,
            )
        kws = self.keywords(message, previous_reply, lore=lore)
        score = score_reference if reference else score_indexed
        ranked = score(self.index, kws, settings=self.settings, top=top)
        div = self.settings.length_divisor
        hits = [(s.record_id, s.s115 / div) for s in ranked]
        return assemble(self.index, hits, settings=self.settings, keywords=kws, ranked=ranked)


__all__ = [
    "ExchangeData",
    "Hit",
    "RecordStore",
    "Retrieval",
    "Retriever",
    "format_block",
    "is_system_exchange",
]
