"""Generated books and chats for the replay tests: every way an entry can fire or be cut.

Deterministic for a seed. The book mixes plain keys, constants, sticky, cooldown and delay
entries, probability rolls, an inclusion group, and contents that name other entries' keys
(recursion); the chat draws from the same words. No shared data is needed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from worldinfo.types import Book, Entry, Message

WORDS = [f"word{i:02d}" for i in range(40)]
FILLER = [
    "the",
    "old",
    "road",
    "and",
    "a",
    "lantern",
    "in",
    "the",
    "rain",
    "near",
    "the",
    "market",
    "stairs",
]


def make_book(seed: int = 1, *, entries: int = 30, name: str = "gen") -> Book:
    """A book of ``entries`` entries over ``WORDS`` with every timed effect and cut."""
    rng = random.Random(seed)
    data: dict[str, Any] = {}
    for uid in range(entries):
        word = WORDS[uid % len(WORDS)]
        mention = rng.choice(WORDS)
        fields: dict[str, Any] = {
            "key": [word],
            "comment": f"Entry {uid} ({word})",
            "content": f"About {word}. "
            + ("It recalls " + mention + ". " if uid % 3 == 0 else "")
            + "lorem " * rng.randint(2, 30),
            "order": rng.randint(1, 200),
        }
        kind = uid % 10
        if kind == 1:
            fields["sticky"] = 5
        elif kind == 2:
            fields["cooldown"] = 4
        elif kind == 4:
            fields["delay"] = 6
        elif kind == 5:
            fields["useProbability"] = True
            fields["probability"] = 50
        elif kind == 6:
            fields["group"] = "weather"
        elif kind == 7:
            fields["group"] = "weather"
            fields["groupWeight"] = 60
        if uid == 0:
            fields["constant"] = True
        if uid == entries - 1:
            fields["key"] = ["never-said-anywhere"]
        data[str(uid)] = dict(Entry.new(uid, **fields).data)
    return Book.from_json(name, {"entries": data})


def make_chat(seed: int = 2, *, messages: int = 40) -> list[Message]:
    """A user/assistant chat, mostly filler, naming one or two of ``WORDS`` per message."""
    rng = random.Random(seed)
    out = []
    for i in range(messages):
        words = [rng.choice(FILLER) for _ in range(6)]
        words += [rng.choice(WORDS[:30]) for _ in range(rng.randint(0, 2))]
        rng.shuffle(words)
        user = i % 2 == 1
        out.append(Message(name="User" if user else "Bot", mes=" ".join(words), is_user=user))
    return out


def write_book(path: Path, book: Book) -> Path:
    """Write ``book`` as a SillyTavern world file."""
    entries = {str(e.uid): dict(e.data) for e in book.entries or ()}
    path.write_text(json.dumps({"entries": entries}), encoding="utf-8")
    return path


def write_chat(path: Path, messages: list[Message]) -> Path:
    """Write ``messages`` as our chat JSON (a list of message objects)."""
    items = [{"name": m.name, "is_user": m.is_user, "mes": m.mes} for m in messages]
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


def write_jsonl(path: Path, messages: list[Message]) -> Path:
    """Write ``messages`` as a SillyTavern ``.jsonl`` chat."""
    header = {"user_name": "User", "character_name": "Bot", "chat_metadata": {}}
    lines = [json.dumps(header)]
    lines += [
        json.dumps({"name": m.name, "is_user": m.is_user, "is_system": m.is_system, "mes": m.mes})
        for m in messages
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


STORY = ["Emberfall", "guild", "Mira", "compass", "dragons", "harbour", "lighthouse", "rumour"]
"""Words the bundled example book (``worldinfo/examples/emberfall.json``) has keys for."""


def make_story_chat(seed: int = 7, *, messages: int = 60) -> list[Message]:
    """A chat for the bundled example book: filler, and one of ``STORY`` in half the messages."""
    rng = random.Random(seed)
    out = []
    for i in range(messages):
        words = [rng.choice(FILLER) for _ in range(8)]
        if rng.random() < 0.5:
            words.append(rng.choice(STORY))
        user = i % 2 == 1
        out.append(Message(name="User" if user else "Archivist", mes=" ".join(words), is_user=user))
    return out
