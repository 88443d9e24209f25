"""Format detection: which reader a file goes to (formats.md section 0, spec R86)."""

from __future__ import annotations

from worldinfo._record import record
from worldinfo.importers.cards import card_format
from worldinfo.importers.chat import is_chat_header
from worldinfo.importers.errors import Reject, reject
from worldinfo.importers.jsonread import load_json
from worldinfo.importers.limits import Limits
from worldinfo.interchange import JSONValue

_BY_SUFFIX = {
    ".lorebook": "novelai-lorebook",
    ".story": "novelai-story",
    ".png": "card-v2",
    ".apng": "card-v2",
    ".charx": "card-v3",
    ".jsonl": "st-chat",
}


_IMAGES = ((b"\xff\xd8\xff", "JPEG"), (b"RIFF", "WEBP"), (b"GIF8", "GIF"))


@record
class Sniffed:
    """A parsed input and the format it will be read as."""

    format: str
    carrier: str
    obj: JSONValue
    extracted_from: str | None = None


def guess_format(file_name: str) -> str:
    """The format a file name suggests (used to name the format of unreadable files)."""
    lowered = file_name.lower()
    for suffix, fmt in _BY_SUFFIX.items():
        if lowered.endswith(suffix):
            return fmt
    return "json"


def _world_format(obj: dict[str, JSONValue], *, st_compatible: bool) -> str | None:
    """SillyTavern's world-import tests (independent ``if``s, the last match wins), then
    the extra shapes worldinfo reads beyond SillyTavern."""
    fmt = None
    if "lorebookVersion" in obj:
        fmt = "novelai-lorebook"
    if obj.get("kind") == "memory":
        fmt = "agnai-memory"
    if obj.get("type") == "risu":
        fmt = "risu-lorebook"
    if fmt is not None:
        return fmt
    if st_compatible:
        return "st-world" if "entries" in obj else None
    content = obj.get("content")
    if "storyContainerVersion" in obj and isinstance(content, dict) and "lorebook" in content:
        return "novelai-story"
    if "entries" in obj:
        return "character-book" if isinstance(obj["entries"], list) else "st-world"
    if isinstance(obj.get("worldinfo"), list):
        return "kobold-story"
    return None


def classify(obj: JSONValue, *, file_name: str, st_compatible: bool) -> str:
    """The format of a parsed JSON document.

    Raises:
        Reject: when it is none of the known formats.
    """
    if isinstance(obj, list):
        if all(isinstance(x, str) for x in obj):
            return "tavernai-chat"
        raise reject("$", "a JSON array that is not a TavernAI chat (array of strings)")
    if not isinstance(obj, dict):
        raise reject("$", "the JSON document is not an object")
    if is_chat_header(obj):
        return "st-chat"
    if obj.get("spec") == "lorebook_v3" and not st_compatible:
        return "lorebook-v3"
    if "spec" in obj and obj.get("spec") != "lorebook_v3":
        return card_format(obj)
    fmt = _world_format(obj, st_compatible=st_compatible)
    if fmt is not None:
        return fmt
    if "name" in obj or "char_name" in obj:
        return "card-v1"
    members = ", ".join(sorted(obj)[:8]) or "none"
    what = (
        "not a NovelAI lorebook (no lorebookVersion)"
        if file_name.lower().endswith(".lorebook")
        else "not a lorebook, character card or chat"
    )
    raise reject(
        "$",
        f"{what}: no entries, lorebookVersion, kind 'memory', type 'risu', spec, "
        f"worldinfo or name member (top-level members: {members})",
    )


def _jsonl_header(raw: bytes, *, limits: Limits) -> bool:
    first = raw.split(b"\n", 1)[0]
    try:
        return is_chat_header(load_json(first, bounds=limits.json_bounds))
    except Reject:
        return False


_PNG = b"\x89PNG\r\n\x1a\n"  # png.SIGNATURE and containers.ZIP_MAGIC: a plain JSON book
_ZIP = b"PK\x03\x04"  # imports neither module (start-up time; tests/test_startup.py)


def sniff(raw: bytes, *, file_name: str, limits: Limits, st_compatible: bool) -> Sniffed:
    """Detect the carrier and format of ``raw`` and parse it.

    Raises:
        Reject: with the problems of whatever reader was tried.
    """
    if raw.startswith(_PNG):
        from worldinfo.importers.containers import card_from_png  # a card (start-up time)

        ex = card_from_png(raw, limits=limits, st_compatible=st_compatible)
        fmt = "novelai-lorebook" if ex.chunk == "naidata" else card_format(ex.obj)
        return Sniffed(format=fmt, carrier="png", obj=ex.obj, extracted_from=ex.chunk)
    is_jpeg_zip = raw.startswith(b"\xff\xd8\xff") and _ZIP in raw
    if raw.startswith(_ZIP) or file_name.lower().endswith(".charx") or is_jpeg_zip:
        from worldinfo.importers.containers import card_from_charx  # (start-up time)

        ex = card_from_charx(raw, limits=limits)
        if "spec" not in ex.obj:
            raise reject("$.card.json", "card.json has no spec member", fmt="card-v3")
        fmt = card_format(ex.obj)
        return Sniffed(format=fmt, carrier="charx", obj=ex.obj, extracted_from=ex.chunk)
    image = next((kind for magic, kind in _IMAGES if raw.startswith(magic)), None)
    if image is not None:
        raise reject("$", f"a {image} image carries no character card (only PNG and CHARX do)")
    try:
        obj = load_json(raw, bounds=limits.json_bounds)
    except Reject:
        if b"\n" in raw.strip() and _jsonl_header(raw, limits=limits):
            return Sniffed(format="st-chat", carrier="jsonl", obj=None)
        raise
    fmt = classify(obj, file_name=file_name, st_compatible=st_compatible)
    return Sniffed(format=fmt, carrier="json", obj=obj)
