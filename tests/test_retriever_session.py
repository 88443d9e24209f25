"""Memory mode through ``Session`` over a multi-turn chat (golden-style expectations).

The same memory is not injected again while its cooldown runs; nothing is injected when
nothing clears the floor; the memory lands at its configured depth.
"""

from __future__ import annotations

from fractions import Fraction

from worldinfo.session import Session
from worldinfo.sources.memory_mode import MemoryPlacement, MemorySource
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.store_memory import MemoryStore
from worldinfo.types import Book, Character, Entry, Message, Settings

SETTINGS = RetrieverSettings(exclusion=4, stopword_share=Fraction("0.05"), character_name="Nova")
BOOK = Book(name="world", entries=(Entry.new(0, key=["harbour"], content="The harbour is old."),))


def _session(cooldown: int | None = 2, sticky: int | None = None) -> tuple[Session, MemoryStore]:
    store = MemoryStore(settings=SETTINGS)
    source = MemorySource(store, placement=MemoryPlacement(cooldown=cooldown, sticky=sticky))
    chat = [Message(name="Nova", mes="Welcome aboard.")]
    for i in range(20):
        chat.append(Message(name="Ann", mes=f"topic{i} question about things", is_user=True))
        chat.append(Message(name="Nova", mes=f"answer{i} about things indeed"))
    session = Session(
        books={"world": BOOK},
        settings=Settings(),
        character=Character(name="Nova", book="world"),
        chat=chat,
        sources=[source],
    )
    return session, store


def _memories(result: object) -> list[object]:
    keys = getattr(result, "activated_keys")  # noqa: B009
    return [uid for world, uid in keys if world == "chat memory"]


def _turn(session: Session, text: str) -> list[object]:
    result = session.generate("normal", append=[Message(name="Ann", mes=text, is_user=True)])
    assert result.error is None
    session.append([Message(name="Nova", mes=f"reply to {text}")])
    return _memories(result)


def test_cooldown_stops_the_same_memory_and_the_floor_stops_everything() -> None:
    session, store = _session(cooldown=5)  # SillyTavern counts messages: 2 per turn
    turns = [
        "remember topic4 please",  # memory of exchange 4
        "topic4 once more",  # same memory: cooling down (2 messages later)
        "and topic4 again",  # still cooling down (4 messages later)
        "unrelated words only",  # nothing clears the floor
        "topic4 finally",  # cooldown over: injected again
        "topic7 instead",  # a different memory is not blocked
    ]
    got = [_turn(session, t) for t in turns]
    rec4 = store.get(next(r for r in store.source_refs() if r.startswith("chat#4:")))
    rec7 = store.get(next(r for r in store.source_refs() if r.startswith("chat#7:")))
    assert rec4 is not None and rec7 is not None
    assert got == [[rec4.id], [], [], [], [rec4.id], [rec7.id]]


def test_memory_is_placed_at_depth_with_the_block() -> None:
    session, _ = _session(cooldown=None)
    result = session.generate(
        "normal", append=[Message(name="Ann", mes="tell me about topic9", is_user=True)]
    )
    groups = [g for g in result.depth if g.depth == 4 and g.role == 0]
    assert len(groups) == 1
    (text,) = groups[0].entries
    assert "User: topic9 question about things\nNova: answer9 about things indeed" in text
    assert text.startswith("[System M]; This is from your past memory")


def test_sticky_keeps_a_thread() -> None:
    session, _ = _session(cooldown=None, sticky=3)
    first = _turn(session, "topic5 story")
    assert len(first) == 1
    assert _turn(session, "unrelated words only") == first  # sticky holds it
    assert _turn(session, "topic8 now") != first
