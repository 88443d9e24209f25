"""Character cards V1 / V2 / V3 (already parsed JSON): card fields and the embedded book."""

from __future__ import annotations

import math
from collections.abc import Mapping

from worldinfo import Character
from worldinfo._record import record
from worldinfo.importers.errors import reject
from worldinfo.interchange import JSONValue, to_number, to_string, trim

CREATOR_PLACEHOLDER = "Creator's notes go here."
_PYGMALION = {
    "char_name": "name",
    "char_persona": "description",
    "char_greeting": "first_mes",
    "world_scenario": "scenario",
    "example_dialogue": "mes_example",
}


@record
class CardRead:
    """What a card yields: its version, the character, and the converted book (if any)."""

    format: str
    character: Character
    world: dict[str, JSONValue] | None
    book_name: str | None


def card_format(obj: Mapping[str, JSONValue]) -> str:
    """``card-v3``, ``card-v2`` or ``card-v1`` from the ``spec`` member."""
    if "spec" not in obj:
        return "card-v1"
    spec, version = obj.get("spec"), obj.get("spec_version")
    if spec == "chara_card_v3" or to_string(version).startswith("3"):
        return "card-v3"
    return "card-v2"


def _text(v: JSONValue) -> str:
    if v is None:
        return ""
    return v if isinstance(v, str) else to_string(v)


def _tags(v: JSONValue) -> tuple[str, ...]:
    if isinstance(v, list):
        return tuple(_text(t) for t in v if t is not None)
    if isinstance(v, str):
        return tuple(t for t in (trim(p) for p in v.split(",")) if t)
    return ()


def card_data(obj: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """The card's field object: ``data`` for V2/V3 (root fields only when ``data`` is
    absent), the root for V1, Pygmalion names mapped to V1 names."""
    data = obj.get("data")
    if "spec" in obj and isinstance(data, dict):
        return dict(data)
    out = dict(obj)
    if "spec" not in obj and "name" not in obj and "char_name" in obj:
        for src, dst in _PYGMALION.items():
            if src in obj:
                out[dst] = obj[src]
    if "spec" not in obj:
        notes = obj.get("creatorcomment", obj.get("creator_notes"))
        out["creator_notes"] = "" if notes == CREATOR_PLACEHOLDER else _text(notes)
    return out


def _depth_prompt(ext: JSONValue) -> tuple[str, int, str]:
    dp = ext.get("depth_prompt") if isinstance(ext, dict) else None
    if not isinstance(dp, dict):
        return "", 4, "system"
    depth = to_number(dp.get("depth", 4))
    role = dp.get("role")
    return (
        _text(dp.get("prompt")),
        int(depth) if math.isfinite(depth) else 4,
        role if role in ("system", "user", "assistant") else "system",
    )


def read_card(obj: Mapping[str, JSONValue], *, avatar: str = "", where: str = "$") -> CardRead:
    """Read a parsed card: the ``Character`` and its converted ``character_book``.

    Args:
        obj: the card JSON object.
        avatar: the card's file name (character filters compare it without extension).
        where: JSON path of ``obj`` for problem messages.

    Raises:
        Reject: when the embedded book cannot be converted.
    """
    fmt = card_format(obj)
    data = card_data(obj)
    name = _text(data.get("name"))
    ext = data.get("extensions")
    book_obj = data.get("character_book")
    book_path = f"{where}.data.character_book" if "spec" in obj else f"{where}.character_book"
    world = None
    book_name: str | None = None
    linked = ext.get("world") if isinstance(ext, dict) else None
    linked = linked if isinstance(linked, str) and linked else None
    if isinstance(book_obj, dict):
        from worldinfo.importers.convert import convert_character_book  # only with a book

        world = convert_character_book(book_obj, where=book_path)
        # SillyTavern names the world it imports from a card after ``character_book.name``
        # (else "<name>'s Lorebook") and links it in ``extensions.world``; when a card is
        # already linked, its embedded book is that world's export, so the link names it.
        raw_name = book_obj.get("name")
        fallback = raw_name if isinstance(raw_name, str) and raw_name else f"{name}'s Lorebook"
        book_name = linked or fallback
    elif book_obj not in (None, False, 0, ""):
        raise reject(book_path, "must be an object")
    prompt, depth, role = _depth_prompt(ext)
    character = Character(
        name=name,
        avatar=avatar,
        tags=_tags(data.get("tags")),
        book=book_name or linked,
        description=_text(data.get("description")),
        personality=_text(data.get("personality")),
        scenario=_text(data.get("scenario")),
        depth_prompt=prompt,
        depth_prompt_depth=depth,
        depth_prompt_role=role,
        creator_notes=_text(data.get("creator_notes")),
    )
    return CardRead(format=fmt, character=character, world=world, book_name=book_name)
