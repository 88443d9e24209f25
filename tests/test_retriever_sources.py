"""The retriever's activation sources, driven through the ``ActivationSource`` protocol."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

from worldinfo.sources.base import ActivationSource, LoadedLore, ScanContext
from worldinfo.sources.memory_mode import (
    MemoryPlacement,
    MemorySource,
    as_scanned,
)
from worldinfo.sources.memory_open import memory_source
from worldinfo.sources.retriever_entries import VectorizedEntriesSource
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.store_memory import MemoryStore
from worldinfo.sources.store_sqlite import SqliteStore
from worldinfo.types import Book, Entry, Message, Settings

SETTINGS = RetrieverSettings(exclusion=2, stopword_share=Fraction("0.05"), character_name="Nova")


def _chat(n: int) -> list[Message]:
    chat = [Message(name="Nova", mes="Welcome aboard.")]
    for i in range(n):
        chat.append(Message(name="Ann", mes=f"topic{i} question about things", is_user=True))
        chat.append(Message(name="Nova", mes=f"answer{i} about things indeed"))
    return chat


def _context(
    chat: Sequence[Message], books: tuple[Book, ...] = (), *, dry: bool = False
) -> ScanContext:
    return ScanContext(
        chat=chat,
        chat_for_wi=[m.mes for m in reversed(chat)],
        books=books,
        settings=Settings(),
        dry_run=dry,
    )


def test_memory_source_injects_a_stable_entry_or_nothing() -> None:
    store = MemoryStore(settings=SETTINGS)
    src = MemorySource(store, placement=MemoryPlacement(cooldown=3, sticky=None))
    assert isinstance(src, ActivationSource)
    chat = _chat(20)
    ctx = _context([*chat, Message(name="Ann", mes="remember topic4 please", is_user=True)])
    forced = src.force_activate(ctx)
    lore = LoadedLore()
    src.entries_loaded(ctx, lore)
    assert len(store) == 20
    assert len(forced) == 1
    entry = forced[0]
    assert entry["world"] == "chat memory" and entry["cooldown"] == 3
    assert entry["constant"] is False and entry["key"] == [] and entry["position"] == 4
    assert "topic4 question" in str(entry["content"]) and "Nova: answer4" in str(entry["content"])
    assert lore.chat_entries == [src.entry(store.index.records[entry["uid"]])]
    assert as_scanned(lore.chat_entries[0]) == entry
    again = _context([*chat, Message(name="Ann", mes="topic4 again?", is_user=True)])
    assert src.force_activate(again)[0] == entry  # same record, same entry object
    nothing = _context([*chat, Message(name="Ann", mes="unrelated words only", is_user=True)])
    assert src.force_activate(nothing) == ()
    lore2 = LoadedLore()
    src.entries_loaded(nothing, lore2)
    assert lore2.chat_entries == lore.chat_entries  # kept loaded (for sticky), not forced
    assert src.force_activate(_context(ctx.chat, dry=True)) == ()


def test_memory_source_excludes_exchanges_in_the_prompt() -> None:
    src = MemorySource(MemoryStore(settings=SETTINGS))
    chat = _chat(20)
    recent = _context([*chat, Message(name="Ann", mes="topic19 again", is_user=True)])
    assert src.force_activate(recent) == ()
    older = _context([*chat, Message(name="Ann", mes="topic17 again", is_user=True)])
    assert len(src.force_activate(older)) == 1


def test_vectorized_entries_are_force_activated() -> None:
    book = Book(
        name="lore",
        entries=(
            Entry.new(0, key=["ship"], content="The ship topic3 is fast.", vectorized=True),
            Entry.new(1, key=["dock"], content="Docks and topic3 and topic5.", vectorized=True),
            Entry.new(2, key=["topic5"], content="Not vectorized topic5."),
            Entry.new(3, comment="off", content="topic5 topic3", vectorized=True, disable=True),
        ),
    )
    src = VectorizedEntriesSource(MemoryStore(settings=SETTINGS), max_entries=1)
    ctx = _context(
        [*_chat(20), Message(name="Ann", mes="topic3 and topic5?", is_user=True)], (book,)
    )
    forced = src.force_activate(ctx)
    assert [(e["world"], e["uid"]) for e in forced] == [("lore", 1)]
    none = _context([*_chat(20), Message(name="Ann", mes="nothing", is_user=True)], (book,))
    assert src.force_activate(none) == ()


def test_memory_source_factory_opens_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "mem.db"
    src = memory_source(db, exclusion=2, stopword_share=0.05, cooldown=2, character_name="Nova")
    assert isinstance(src, MemorySource)
    ctx = _context([*_chat(10), Message(name="Ann", mes="topic2 again", is_user=True)])
    assert len(src.force_activate(ctx)) == 1
    src.store.close()
    with SqliteStore(db, settings=SETTINGS) as store:
        assert len(store) == 10
    entries = memory_source(db, mode="entries", max_entries=2)
    assert isinstance(entries, VectorizedEntriesSource)
