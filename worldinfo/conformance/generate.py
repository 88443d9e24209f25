"""Deterministic benchmark inputs: generated books and chats as ``st-worldinfo-golden/2`` cases.

Books mix the entry kinds the fast path treats differently: plain substring keys, whole-word
keys, case-sensitive keys, regex keys, selective entries with every secondary logic,
inclusion groups (weighted and scored), probability rolls, own scan depths, constants,
delay-until-recursion, exclude/prevent recursion, and contents that mention other entries'
keys (recursion fodder). Chats draw from the same vocabulary. Same arguments, same case.

    python -m worldinfo.conformance.generate --entries 5000 --messages 200 > case.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

from worldinfo.types import ENTRY_TEMPLATE

FILLER = [
    "the",
    "a",
    "to",
    "of",
    "and",
    "in",
    "is",
    "was",
    "with",
    "we",
    "you",
    "I",
    "see",
    "old",
    "dark",
    "near",
    "go",
]
CHARACTER = {"name": "Seraphina", "avatar": "Seraphina.png", "tags": ["fantasy"]}


def vocabulary(size: int) -> list[str]:
    """Key words ``w00000`` ... (rare in chats, so each entry is hit by few messages)."""
    return [f"w{i:05d}" for i in range(size)]


def _key(rng: random.Random, words: list[str]) -> str:
    word = rng.choice(words)
    roll = rng.random()
    if roll < 0.02:
        return f"/\\b{word}\\b/i"
    if roll < 0.05:
        return f"{word} {rng.choice(words)}"
    if roll < 0.08:
        return word.upper()
    if roll < 0.085:
        return rng.choice(("", "  ", "{{char}}", "Seraphina", f"{word}\nx"))
    return word


def entry(uid: int, rng: random.Random, words: list[str]) -> dict[str, Any]:
    """One generated entry."""
    e: dict[str, Any] = {"uid": uid, **ENTRY_TEMPLATE}
    e["key"] = [_key(rng, words) for _ in range(rng.choice((1, 2, 3, 3, 4)))]
    body = [rng.choice(FILLER) for _ in range(12)]
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        body.insert(rng.randrange(len(body)), rng.choice(words))
    e["content"] = f"Lore {uid}: " + " ".join(body)
    e["order"] = rng.randrange(1, 1000)
    e["displayIndex"] = uid
    roll = rng.random()
    if roll < 0.10:
        e["keysecondary"] = [rng.choice(words), rng.choice(FILLER)]
        e["selectiveLogic"] = rng.randrange(4)
    elif roll < 0.15:
        e["matchWholeWords"] = True
    elif roll < 0.18:
        e["caseSensitive"] = True
    elif roll < 0.21:
        e["group"] = f"g{rng.randrange(40)}"
        e["groupWeight"] = rng.choice((10, 50, 100))
        e["useGroupScoring"] = rng.random() < 0.3
    elif roll < 0.24:
        e["probability"] = rng.choice((25, 50, 75))
    elif roll < 0.26:
        e["scanDepth"] = rng.choice((1, 3, 20))
    elif roll < 0.27:
        e["delayUntilRecursion"] = rng.choice((1, 2))
    elif roll < 0.29:
        e["excludeRecursion"] = True
    elif roll < 0.31:
        e["preventRecursion"] = True
    elif roll < 0.3105:
        e["constant"] = True
    elif roll < 0.315:
        e["disable"] = True
    elif roll < 0.325:
        e[rng.choice(("sticky", "cooldown", "delay"))] = rng.choice((1, 2, 3))
    elif roll < 0.33:
        e["triggers"] = [rng.choice(("normal", "continue"))]
    elif roll < 0.333:
        e["characterFilter"] = {"names": ["Seraphina"], "isExclude": rng.random() < 0.5}
    elif roll < 0.336:
        e["content"] = "@@activate\n" + e["content"]
    elif roll < 0.338:
        e["ignoreBudget"] = True
    return e


def book(entries: int, seed: int) -> dict[str, Any]:
    """A world file with ``entries`` entries; the vocabulary grows with the book."""
    rng = random.Random(seed)
    words = vocabulary(max(200, entries // 2))
    return {"entries": {str(i): entry(i, rng, words) for i in range(entries)}}


def chat(messages: int, seed: int, *, vocab: int, words_per_message: int = 20) -> list[Any]:
    """Alternating user/character messages, oldest first; about one word in six a key."""
    rng = random.Random(seed + 1)
    words = vocabulary(vocab)
    out = []
    for i in range(messages):
        text = " ".join(
            rng.choice(words) if rng.random() < 0.17 else rng.choice(FILLER)
            for _ in range(words_per_message)
        )
        user = i % 2 == 0
        out.append({"name": "User" if user else "Seraphina", "is_user": user, "mes": text})
    return out


def case(
    *,
    name: str,
    entries: int,
    messages: int,
    seed: int = 1,
    depth: int = 10,
    recursive: bool = True,
    min_activations: int = 0,
    depth_max: int = 0,
    steps: int = 2,
) -> dict[str, Any]:
    """A case: one global book, a chat, ``steps`` normal generations (one message each)."""
    vocab = max(200, entries // 2)
    messages_all = chat(messages + steps - 1, seed, vocab=vocab)
    return {
        "format": "st-worldinfo-golden/2",
        "name": name,
        "books": {"Bench": book(entries, seed)},
        "global_books": ["Bench"],
        "character": CHARACTER,
        "persona": {"name": "User"},
        "settings": {
            "depth": depth,
            "recursive": recursive,
            "min_activations": min_activations,
            "min_activations_depth_max": depth_max,
            "budget": 25,
        },
        "max_context": 32768,
        "rng": {"kind": "mulberry32", "seed": seed},
        "chat": messages_all[:messages],
        "steps": [{"type": "normal"}]
        + [{"type": "normal", "append": [m]} for m in messages_all[messages:]],
    }


def long_chat(*, entries: int = 1000, messages: int = 2000, seed: int = 7) -> dict[str, Any]:
    """Min-activations widening from depth 2 to a depth max of 1,000 over a long chat."""
    c = case(
        name=f"longchat-{entries}x{messages}",
        entries=entries,
        messages=messages,
        seed=seed,
        depth=2,
        recursive=False,
        min_activations=10_000,
        depth_max=1000,
        steps=1,
    )
    return c


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=5000)
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--long-chat", action="store_true")
    args = parser.parse_args(argv)
    if args.long_chat:
        data = long_chat(entries=args.entries, messages=args.messages, seed=args.seed)
    else:
        data = case(
            name=f"gen-{args.entries}x{args.messages}",
            entries=args.entries,
            messages=args.messages,
            seed=args.seed,
            depth=args.depth,
        )
    json.dump(data, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
