"""The chat-history memory: stores, settings, the two retrieval modes, dates, chat ingest.

A store holds finished exchanges (user text + reply), each with the caller's ``source_ref``
and an optional timestamp; ``retrieve`` answers a new user message with the best stored
exchanges (``Retrieval.hits``: source refs, dates, scores) and a memory block, or nothing.

Two modes (``RetrieverSettings.ranking``): ``"zwaif"`` (default) is Z-Waif's algorithm with
its bugs fixed, exact against the original; ``"ranked"`` is BM25 with Z-Waif's query-side
weights, neighbour evidence and date questions ("on May 4th", "yesterday", "our first
conversation"). The newest ``exclusion`` (20) exchanges are never retrieved: they are
already in the prompt. Set ``exclusion=0`` to search everything; ``Retrieval.note`` says so
when the exclusion hides every stored exchange.

Example::

    from worldinfo.memory import MemoryStore, RetrieverSettings, ingest_st_chat
    store = MemoryStore(settings=RetrieverSettings(ranking="ranked", exclusion=0))
    ingest_st_chat(store, "chat.jsonl")
    for hit in store.retrieve("Which book did you recommend?", top=3).hits:
        print(hit.source_ref, hit.timestamp, hit.score)
"""

from __future__ import annotations

from pathlib import Path

from worldinfo.sources.date_phrases import DateQuery, find_date
from worldinfo.sources.memory_mode import MemoryPlacement, MemorySource
from worldinfo.sources.memory_open import memory_source
from worldinfo.sources.retriever import Hit, RecordStore, Retrieval, Retriever
from worldinfo.sources.retriever_chat import (
    ChatSync,
    Exchange,
    exchanges,
    parse_st_chat,
    read_chat_text,
    st_chat_dates,
)
from worldinfo.sources.retriever_index import Record
from worldinfo.sources.retriever_settings import RANKINGS, Ranking, RetrieverSettings
from worldinfo.sources.retriever_tokenize import lore_tokens
from worldinfo.sources.store_memory import MemoryStore
from worldinfo.sources.store_sqlite import SqliteStore, StoreError
from worldinfo.sources.timestamps import TimestampError, parse_timestamp


def ingest_st_chat(
    store: RecordStore, path: str | Path, *, chat_id: str | None = None
) -> tuple[int, int]:
    """Ingest a SillyTavern ``.jsonl`` chat with its ``send_date``s (``ChatSync``).

    Args:
        store: any store.
        path: the chat file.
        chat_id: the identity namespace of its exchanges (default: the file name stem).

    Returns:
        (exchanges ingested, records deleted because the chat no longer has them).

    Raises:
        OSError: the file cannot be read.
        ValueError: a line is not JSON (the message names the file).
    """
    chat = Path(path)
    try:
        text = read_chat_text(chat)
        _, messages = parse_st_chat(text)
        dates = st_chat_dates(text)
    except ValueError as exc:
        raise ValueError(f"{chat}: {exc}") from exc
    sync = ChatSync(store, chat_id=chat_id or chat.stem)
    return sync.sync(messages, dates=dates)


__all__ = [
    "RANKINGS",
    "ChatSync",
    "DateQuery",
    "Exchange",
    "Hit",
    "MemoryPlacement",
    "MemorySource",
    "MemoryStore",
    "Ranking",
    "Record",
    "RecordStore",
    "Retrieval",
    "Retriever",
    "RetrieverSettings",
    "SqliteStore",
    "StoreError",
    "TimestampError",
    "exchanges",
    "find_date",
    "ingest_st_chat",
    "lore_tokens",
    "memory_source",
    "parse_st_chat",
    "parse_timestamp",
    "st_chat_dates",
]
