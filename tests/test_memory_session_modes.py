"""Both retrieval modes behind ``Session``: the memory entry, cooldown and the floor."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from worldinfo.memory import MemoryPlacement, MemorySource, MemoryStore, RetrieverSettings
from worldinfo.memory import memory_source as open_memory_source
from worldinfo.session import Session
from worldinfo.sources.store_sqlite import SqliteStore
from worldinfo.types import Book, Character, Entry, Message, Settings

BOOK = Book(name="world", entries=(Entry.new(0, key=["harbour"], content="The harbour is old."),))
MODES = {
    "zwaif": RetrieverSettings(exclusion=4, stopword_share=Fraction(1, 20), character_name="Nova"),
    "ranked": RetrieverSettings(exclusion=4, ranking="ranked", character_name="Nova"),
}


def _chat() -> list[Message]:
    chat = [Message(name="Nova", mes="Welcome aboard.")]
    for i in range(20):
        chat.append(Message(name="Ann", mes=f"topic{i} question about things", is_user=True))
        chat.append(Message(name="Nova", mes=f"answer{i} about things indeed"))
    return chat


def _session(source: MemorySource) -> Session:
    return Session(
        books={"world": BOOK},
        settings=Settings(),
        character=Character(name="Nova", book="world"),
        chat=_chat(),
        sources=[source],
    )


REPLIES = ("Sure.", "Of course.", "Right.", "Okay then.", "Understood.", "Alright.", "Yes.")


def _turn(session: Session, text: str) -> list[object]:
    """One turn; the character's replies do not repeat (no shared words to search)."""
    result = session.generate("normal", append=[Message(name="Ann", mes=text, is_user=True)])
    assert result.error is None
    turn = sum(m.is_user for m in session.chat) - 21
    session.append([Message(name="Nova", mes=REPLIES[turn % len(REPLIES)])])
    return [uid for world, uid in result.activated_keys if world == "chat memory"]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_cooldown_and_floor_in_both_modes(mode: str) -> None:
    store = MemoryStore(settings=MODES[mode])
    session = _session(MemorySource(store, placement=MemoryPlacement(cooldown=5)))
    turns = [
        "remember topic4 please",
        "topic4 once more",  # cooling down
        "and topic4 again",  # still cooling down
        "unrelated words only",  # nothing clears the floor
        "topic4 finally",  # cooldown over
        "topic7 instead",  # another memory is not blocked
    ]
    got = [_turn(session, t) for t in turns]
    rec4 = store.get(next(r for r in store.source_refs() if r.startswith("chat#4:")))
    rec7 = store.get(next(r for r in store.source_refs() if r.startswith("chat#7:")))
    assert rec4 is not None and rec7 is not None
    assert got == [[rec4.id], [], [], [], [rec4.id], [rec7.id]]


def test_ranked_memory_lands_at_depth_with_its_block() -> None:
    store = MemoryStore(settings=MODES["ranked"])
    session = _session(MemorySource(store))
    result = session.generate(
        "normal", append=[Message(name="Ann", mes="tell me about topic9", is_user=True)]
    )
    groups = [g for g in result.depth if g.depth == 4 and g.role == 0]
    (text,) = groups[0].entries
    assert "User: topic9 question about things\nNova: answer9 about things indeed" in text


def test_memory_source_opens_a_ranked_sqlite_store(tmp_path: Path) -> None:
    source = open_memory_source(tmp_path / "m.db", ranking="ranked", exclusion=4, cooldown=5)
    assert isinstance(source, MemorySource) and isinstance(source.store, SqliteStore)
    assert source.store.settings.ranking == "ranked"
    session = _session(source)
    assert len(_turn(session, "remember topic4 please")) == 1
    assert _turn(session, "topic4 once more") == []
    source.store.close()
