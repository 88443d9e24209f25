"""``memory_source``: open a SQLite store and the activation source of the chosen mode.

Apart from ``memory_mode`` because the entries mode (``retriever_entries``) builds on it.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from worldinfo.sources.base import ActivationSource
from worldinfo.sources.memory_mode import MemoryPlacement, MemorySource
from worldinfo.sources.retriever_entries import VectorizedEntriesSource
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.store_sqlite import SqliteStore


def memory_source(db: str | Path, **settings: object) -> ActivationSource:
    """Open a SQLite memory store and return its activation source (``scan --memory``).

    Args:
        db: the database file (created if missing, unless ``readonly``).
        settings: any ``RetrieverSettings`` or ``MemoryPlacement`` field, plus
            ``mode`` (``"memories"``, the default, or ``"entries"``), ``chat_id``,
            ``ingest`` (sync the chat into the store, default True), ``readonly``
            (open an existing store and never write it, default False; needs
            ``ingest=False``) and ``max_entries``.

    Returns:
        The source (it owns the store).
    """
    names = {f.name for f in fields(RetrieverSettings)}
    place = {f.name for f in fields(MemoryPlacement)}
    rs = RetrieverSettings.from_config({k: v for k, v in settings.items() if k in names})
    mp = MemoryPlacement(**{k: v for k, v in settings.items() if k in place})  # type: ignore[arg-type]
    extra = {k: v for k, v in settings.items() if k not in names | place}
    mode = str(extra.pop("mode", "memories"))
    chat_id = str(extra.pop("chat_id", "chat"))
    ingest = bool(extra.pop("ingest", True))
    readonly = bool(extra.pop("readonly", False))
    max_entries = int(str(extra.pop("max_entries", 3)))
    if extra:
        raise TypeError(f"unknown memory settings: {sorted(extra)}")
    if readonly and ingest:
        raise ValueError("a readonly memory store cannot ingest the chat: pass ingest=False")
    store = SqliteStore(db, settings=rs, readonly=readonly)
    if mode == "entries":
        return VectorizedEntriesSource(
            store, chat_id=chat_id, ingest=ingest, max_entries=max_entries
        )
    if mode != "memories":
        raise ValueError(f"mode must be 'memories' or 'entries', not {mode!r}")
    return MemorySource(store, placement=mp, chat_id=chat_id, ingest=ingest)
