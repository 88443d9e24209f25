"""The in-memory record store: the retriever with ingest and delete, nothing persisted."""

from __future__ import annotations

from collections.abc import Iterable

from worldinfo.sources.retriever import ExchangeData, Retriever, is_system_exchange
from worldinfo.sources.retriever_index import Record, token_ids
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.timestamps import optional_timestamp


class MemoryStore(Retriever):
    """Records in memory only (tests, one-off queries, the benchmark's baseline)."""

    def __init__(self, *, settings: RetrieverSettings | None = None) -> None:
        super().__init__(settings=settings)
        self._next_id = 1

    def ingest(
        self, user: str, reply: str, *, source_ref: str, timestamp: object = None
    ) -> Record | None:
        """Store one finished exchange (F15).

        Args:
            user: the user's text.
            reply: the character's reply.
            source_ref: the exchange's identity; a second ingest with it is a no-op.
            timestamp: when it happened (any form of ``timestamps.parse_timestamp``), or
                ``None``.

        Returns:
            The new record, or ``None`` if skipped (system exchange or already stored).

        Raises:
            TimestampError: ``timestamp`` is in no accepted form.
        """
        when = optional_timestamp(timestamp)
        if source_ref in self.index.by_ref or is_system_exchange(user):
            return None
        rec = Record(
            timestamp=when,
            id=self._next_id,
            source_ref=source_ref,
            user=user,
            reply=reply,
            user_tokens=token_ids(self.index, self.tokens(user)),
            reply_tokens=token_ids(self.index, self.tokens(reply)),
        )
        self.index.add(rec)
        self._next_id += 1
        return rec

    def ingest_many(self, exchanges: Iterable[ExchangeData]) -> list[Record | None]:
        """Store many exchanges in order, all or none (see ``ingest``).

        Returns:
            One result per exchange, in order: the new record or ``None`` if skipped.

        Raises:
            TimestampError: a timestamp is in no accepted form (nothing is stored).
        """
        items = list(exchanges)
        for ex in items:
            optional_timestamp(ex.timestamp)
        return [
            self.ingest(ex.user, ex.reply, source_ref=ex.source_ref, timestamp=ex.timestamp)
            for ex in items
        ]

    def delete(self, source_ref: str) -> bool:
        """Remove an exchange's record and decrement its counts (F16); ``False`` if absent."""
        rid = self.index.by_ref.get(source_ref)
        return rid is not None and self.index.remove(rid) is not None

    def close(self) -> None:
        """Nothing to release."""
