"""Export: SillyTavern world JSON, V2/V3 ``character_book`` and cards, PNG card writing.

``character_book`` follows SillyTavern's reverse mapping (``convertWorldInfoToCharacterBook``,
spec R82b). Two deliberate, documented differences keep export lossless by default:

* A book imported from a card whose entries are unchanged since (they still equal the
  conversion of its ``originalData``) is written back as that original card book, so
  card -> import -> export -> import is the identity. SillyTavern regenerates it.
* ``st_exact=False`` (default): a field present on the entry is written as is, and a
  missing one gets the default SillyTavern's *importer* would give it back. SillyTavern's
  own exporter uses different defaults for four fields (``useProbability`` false,
  ``group_weight`` null, ``use_group_scoring`` false for null, ``probability`` null), which
  change the entry on re-import; ``st_exact=True`` reproduces them.
"""

from __future__ import annotations

import base64
import copy
import os
import struct
import zlib
from collections.abc import Mapping

from worldinfo import Book, Character, Entry, Origin
from worldinfo._record import replace
from worldinfo.importers.cards import card_data
from worldinfo.importers.convert import convert_character_book
from worldinfo.importers.errors import Reject
from worldinfo.importers.limits import DEFAULT_LIMITS
from worldinfo.importers.png import SIGNATURE, replace_text_chunks
from worldinfo.importers.writing import write_atomic as write_atomic  # noqa: PLC0414 (re-export)
from worldinfo.interchange import (
    ORIGIN_FIELD,
    UNDEFINED,
    JSONValue,
    canonical,
    is_untrusted,
    js_key_order,
    nullish,
    origin_mark,
    stringify,
    to_number,
    to_string,
    truthy,
)

# (extension key, world-info field, SillyTavern export default, importer default)
_EXT_FIELDS: tuple[tuple[str, str, JSONValue, JSONValue], ...] = (
    ("exclude_recursion", "excludeRecursion", UNDEFINED, False),
    ("display_index", "displayIndex", UNDEFINED, UNDEFINED),
    ("probability", "probability", None, 100),
    ("useProbability", "useProbability", False, True),
    ("depth", "depth", 4, 4),
    ("selectiveLogic", "selectiveLogic", 0, 0),
    ("outlet_name", "outletName", "", ""),
    ("group", "group", "", ""),
    ("group_override", "groupOverride", False, False),
    ("group_weight", "groupWeight", None, 100),
    ("prevent_recursion", "preventRecursion", False, False),
    ("delay_until_recursion", "delayUntilRecursion", False, False),
    ("scan_depth", "scanDepth", None, None),
    ("match_whole_words", "matchWholeWords", None, None),
    ("use_group_scoring", "useGroupScoring", False, None),
    ("case_sensitive", "caseSensitive", None, None),
    ("automation_id", "automationId", "", ""),
    ("role", "role", 0, 0),
    ("vectorized", "vectorized", False, False),
    ("sticky", "sticky", None, None),
    ("cooldown", "cooldown", None, None),
    ("delay", "delay", None, None),
    ("match_persona_description", "matchPersonaDescription", False, False),
    ("match_character_description", "matchCharacterDescription", False, False),
    ("match_character_personality", "matchCharacterPersonality", False, False),
    ("match_character_depth_prompt", "matchCharacterDepthPrompt", False, False),
    ("match_scenario", "matchScenario", False, False),
    ("match_creator_notes", "matchCreatorNotes", False, False),
    ("triggers", "triggers", [], []),
    ("ignore_budget", "ignoreBudget", False, False),
)


def stored(entry: Entry) -> dict[str, JSONValue]:
    """A deep copy of the entry object to write; an untrusted entry's provenance goes in
    ``extensions.worldinfo_origin`` (SillyTavern keeps unknown extension fields), so the
    exported book re-imports as untrusted."""
    data = copy.deepcopy(dict(entry.data))
    if is_untrusted(entry):
        ext = data.get("extensions")
        ext = dict(ext) if isinstance(ext, dict) else {}
        ext[ORIGIN_FIELD] = origin_mark(replace(entry.origin or Origin(), trusted=False))
        data["extensions"] = ext
    return data


def world_json(book: Book) -> dict[str, JSONValue]:
    """The SillyTavern world file object of ``book`` (``Book.from_json`` reads it back).

    Entries are keyed by their ``uid`` when those keys are unique and enumerate in the
    book's order; otherwise by position (``"0"``, ``"1"``, ...), which keeps the order.
    """
    out: dict[str, JSONValue] = {}
    if book.entries is not None:
        keys = [to_string(e.data.get("uid", i)) for i, e in enumerate(book.entries)]
        if len(set(keys)) != len(keys) or js_key_order(keys) != keys:
            keys = [str(i) for i in range(len(book.entries))]
        out["entries"] = {k: stored(e) for k, e in zip(keys, book.entries, strict=False)}
    out.update(copy.deepcopy(dict(book.extra)))
    return out


def _loose_zero(v: JSONValue) -> bool:
    """``v == 0`` in JavaScript for JSON values."""
    if nullish(v) or isinstance(v, dict):
        return False
    return to_number(v) == 0


def _card_entry(data: Mapping[str, JSONValue], *, st_exact: bool) -> dict[str, JSONValue]:
    def get(k: str) -> JSONValue:
        return data.get(k, UNDEFINED)

    ext_in = get("extensions")
    ext: dict[str, JSONValue] = dict(copy.deepcopy(ext_in)) if isinstance(ext_in, dict) else {}
    ext["position"] = get("position")
    for ext_key, field, st_default, import_default in _EXT_FIELDS:
        value = get(field)
        if st_exact:
            ext[ext_key] = st_default if nullish(value) and st_default is not UNDEFINED else value
        else:
            ext[ext_key] = import_default if value is UNDEFINED else value
    entry: dict[str, JSONValue] = {
        "id": get("uid"),
        "keys": get("key"),
        "secondary_keys": get("keysecondary"),
        "comment": get("comment"),
        "content": get("content"),
        "constant": get("constant"),
        "selective": get("selective"),
        "insertion_order": get("order"),
        "enabled": not truthy(get("disable")),
        "position": "before_char" if _loose_zero(get("position")) else "after_char",
        "use_regex": True,
        "extensions": ext,
    }
    out: dict[str, JSONValue] = _drop_undefined(entry)
    return out


def _drop_undefined(value: JSONValue) -> JSONValue:
    if isinstance(value, dict):
        return {k: _drop_undefined(v) for k, v in value.items() if v is not UNDEFINED}
    if isinstance(value, list):
        return [None if v is UNDEFINED else _drop_undefined(v) for v in value]
    return copy.deepcopy(value)


def _unchanged_original(book: Book) -> dict[str, JSONValue] | None:
    original = book.extra.get("originalData")
    if not isinstance(original, dict) or book.entries is None:
        return None
    if any(is_untrusted(e) for e in book.entries):
        return None  # the original has no provenance mark
    try:
        again = convert_character_book(original)
    except Reject:
        return None
    if canonical(again["entries"]) != canonical(world_json(book)["entries"]):
        return None
    return copy.deepcopy(original)


def character_book(book: Book, *, st_exact: bool = False) -> dict[str, JSONValue]:
    """The V2/V3 ``character_book`` for ``book`` (SillyTavern's reverse mapping).

    Args:
        book: the book to export.
        st_exact: reproduce SillyTavern's exporter defaults exactly (see module docs)
            and always regenerate from the entries.
    """
    if not st_exact:
        original = _unchanged_original(book)
        if original is not None:
            return original
    entries = [_card_entry(stored(e), st_exact=st_exact) for e in book.entries or ()]
    return {"name": book.name, "entries": entries, "extensions": {}}


def _blank_card_data(name: str, *, v3: bool) -> dict[str, JSONValue]:
    data: dict[str, JSONValue] = {
        "name": name,
        "description": "",
        "personality": "",
        "scenario": "",
        "first_mes": "",
        "mes_example": "",
        "creator_notes": "",
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": [],
        "tags": [],
        "creator": "",
        "character_version": "",
        "extensions": {},
    }
    if v3:
        data["group_only_greetings"] = []
    return data


def card_json(
    book: Book | None,
    *,
    card: Mapping[str, JSONValue] | None = None,
    character: Character | None = None,
    v3: bool = False,
    st_exact: bool = False,
) -> dict[str, JSONValue]:
    """A V2 (or V3) card object carrying ``book`` as its ``character_book``.

    Args:
        book: the book to embed (``None``: keep the card's own book, if any).
        card: the card the book came from; all its other fields are kept.
        character: used for the name of a new card when ``card`` is ``None``.
        v3: write ``chara_card_v3`` / ``3.0`` instead of ``chara_card_v2`` / ``2.0``.
        st_exact: passed to ``character_book``.
    """
    if card is not None:
        out = copy.deepcopy(dict(card))
        data = copy.deepcopy(card_data(card)) if "spec" not in card else out.get("data")
        if not isinstance(data, dict):
            data = copy.deepcopy(card_data(card))
        if "spec" not in card:
            for legacy in ("creatorcomment",):
                data.pop(legacy, None)
    else:
        name = character.name if character else (book.name if book else "")
        out, data = {}, _blank_card_data(name, v3=v3)
    if v3 and "group_only_greetings" not in data:
        data["group_only_greetings"] = []
    if book is not None:
        data["character_book"] = character_book(book, st_exact=st_exact)
    out["spec"] = "chara_card_v3" if v3 else "chara_card_v2"
    out["spec_version"] = "3.0" if v3 else "2.0"
    out["data"] = data
    return out


def _blank_png() -> bytes:
    def chunk(t: bytes, d: bytes) -> bytes:
        return struct.pack(">I4s", len(d), t) + d + struct.pack(">I", zlib.crc32(t + d))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    idat = zlib.compress(b"\x00\x00\x00\x00\x00")
    return SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def png_card_bytes(card: Mapping[str, JSONValue], *, base: bytes | None = None) -> bytes:
    """PNG bytes carrying ``card``: SillyTavern's writer rule.

    Every existing ``chara`` / ``ccv3`` text chunk is dropped; before ``IEND`` a ``chara``
    chunk gets the card JSON as is and a ``ccv3`` chunk the same JSON with
    ``spec: chara_card_v3, spec_version: 3.0``. All other chunks are kept byte for byte.

    Raises:
        Reject: when ``base`` is not a well-formed PNG.
    """
    v3 = dict(card)
    v3["spec"], v3["spec_version"] = "chara_card_v3", "3.0"
    texts = [
        ("chara", base64.b64encode(stringify(dict(card)).encode("utf-8")).decode("ascii")),
        ("ccv3", base64.b64encode(stringify(v3).encode("utf-8")).decode("ascii")),
    ]
    return replace_text_chunks(base or _blank_png(), texts, limits=DEFAULT_LIMITS)


def write_png_card(
    out: str | os.PathLike[str], card: Mapping[str, JSONValue], *, base: bytes | None = None
) -> None:
    """Write ``card`` into a PNG at ``out`` atomically (temp file in the same folder, then
    rename); ``base`` is the image to carry it (a 1x1 transparent PNG when ``None``).

    Raises:
        Reject: when ``base`` is not a well-formed PNG.
        OSError: when the file cannot be written.
    """
    write_atomic(out, png_card_bytes(card, base=base))
