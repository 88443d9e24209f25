"""Hard bounds for hostile input: sizes, chunk counts, decompression, JSON size, entries."""

from __future__ import annotations

import zlib

from worldinfo._record import field_names, record
from worldinfo.importers.errors import Reject, reject
from worldinfo.interchange import DEFAULT_JSON_BOUNDS, JSONBounds, JSONValue

MiB = 1024 * 1024


@record
class Limits:
    """Resource bounds applied to every input.

    Args:
        max_file_bytes: largest input accepted at all.
        max_png_chunks: most PNG chunks walked before the file is refused.
        max_inflated_bytes: most bytes any zTXt/iTXt chunk or zip member may expand to.
        max_zip_members: most members a CHARX zip may list.
        max_json_depth: deepest nesting of arrays/objects accepted in any JSON text.
        max_json_containers: most arrays + objects in one JSON text.
        max_json_items: most array elements + object members in one JSON text (commas +
            containers).
        max_json_string_bytes: longest string (or key) in a JSON text, in bytes.
        max_book_entries: most entries one book may hold.
        max_chat_lines: most lines (messages) read from a chat file.

    The JSON bounds are checked on the bytes before they are parsed (``_js.bounds``), the
    entry count right after parsing, before anything is validated or converted.
    """

    max_file_bytes: int = 64 * MiB
    max_png_chunks: int = 20_000
    max_inflated_bytes: int = 32 * MiB
    max_zip_members: int = 4_096
    max_json_depth: int = DEFAULT_JSON_BOUNDS.max_json_depth
    max_json_containers: int = DEFAULT_JSON_BOUNDS.max_json_containers
    max_json_items: int = DEFAULT_JSON_BOUNDS.max_json_items
    max_json_string_bytes: int = DEFAULT_JSON_BOUNDS.max_json_string_bytes
    max_book_entries: int = 50_000
    max_chat_lines: int = 1_000_000

    @property
    def json_bounds(self) -> JSONBounds:
        """The JSON part of these limits."""
        return JSONBounds(
            max_json_depth=self.max_json_depth,
            max_json_containers=self.max_json_containers,
            max_json_items=self.max_json_items,
            max_json_string_bytes=self.max_json_string_bytes,
        )

    @classmethod
    def parse(cls, settings: str, *, base: Limits | None = None) -> Limits:
        """Limits from ``"name=N,name=N"`` (what ``--limit`` takes), over ``base``.

        Raises:
            ValueError: on an unknown name or a value that is not a positive integer.
        """
        names = set(field_names(cls))
        changes: dict[str, int] = {}
        for part in filter(None, (p.strip() for p in settings.split(","))):
            name, _, value = (x.strip() for x in part.partition("="))
            if name not in names:
                raise ValueError(f"unknown limit {name!r} (known: {', '.join(sorted(names))})")
            if not value.isdigit() or int(value) < 1:
                raise ValueError(f"limit {name} needs a positive integer, not {value!r}")
            changes[name] = int(value)
        old = base or DEFAULT_LIMITS
        return cls(**{n: changes.get(n, getattr(old, n)) for n in field_names(cls)})


DEFAULT_LIMITS = Limits()


def how_to_raise(limit: str) -> str:
    """The sentence that ends every refusal: which knob raises ``limit``."""
    return (
        f"to accept it, raise the limit: Limits({limit}=N) in Python, --limit {limit}=N in the CLI"
    )


def refuse(where: str, message: str, *, limit: str) -> Reject:
    """A ``Reject`` for an input over ``limit``, saying how to raise it."""
    return reject(where, f"{message} ({how_to_raise(limit)})")


def check_count(count: int, *, limit: str, limits: Limits, what: str, where: str) -> None:
    """Refuse ``count`` items of ``what`` when it is more than the ``limit`` field allows.

    Raises:
        Reject: naming the limit and how to raise it.
    """
    allowed = int(getattr(limits, limit))
    if count > allowed:
        message = f"{count} {what}, more than {limit}={allowed} allows; refused"
        raise refuse(where, message, limit=limit)


def inflate(data: bytes, *, limit: int, where: str, wbits: int = zlib.MAX_WBITS) -> bytes:
    """Decompress zlib ``data`` but never produce more than ``limit`` bytes.

    Args:
        data: the compressed bytes.
        limit: hard output cap (``Limits.max_inflated_bytes``); one byte more and the
            input is refused.
        where: JSON-path-like location for the problem message.
        wbits: zlib window bits (default: zlib stream).

    Returns:
        The decompressed bytes.

    Raises:
        Reject: on corrupt data or when the output would exceed ``limit``.
    """
    d = zlib.decompressobj(wbits)
    try:
        out = d.decompress(data, limit + 1)
    except zlib.error as exc:
        raise reject(where, f"corrupt compressed data ({exc})") from None
    if len(out) > limit or d.unconsumed_tail:
        message = f"decompresses to more than max_inflated_bytes={limit} bytes; refused"
        raise refuse(where, message, limit="max_inflated_bytes")
    if not d.eof:
        raise reject(where, "truncated compressed data")
    return out


_ENTRIES_AT: dict[str, tuple[str, ...]] = {
    "st-world": ("entries",),
    "character-book": ("entries",),
    "lorebook-v3": ("data", "entries"),
    "novelai-lorebook": ("entries",),
    "novelai-story": ("content", "lorebook", "entries"),
    "agnai-memory": ("entries",),
    "risu-lorebook": ("data",),
    "kobold-story": ("worldinfo",),
}


def check_entry_count(fmt: str, obj: JSONValue, *, limits: Limits) -> None:
    """Refuse a parsed ``fmt`` document whose book has more than ``limits.max_book_entries``
    entries (checked before the schema and the conversion, whose cost grows with them).

    Raises:
        Reject: naming the limit and how to raise it.
    """
    path = _ENTRIES_AT.get(fmt, ())
    if fmt.startswith("card-") and isinstance(obj, dict):
        spec = "spec" in obj and isinstance(obj.get("data"), dict)
        path = ("data", "character_book", "entries") if spec else ("character_book", "entries")
    value = obj
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    if path and isinstance(value, (dict, list)):
        where = "$." + ".".join(path)
        what = "book entries"
        check_count(len(value), limit="max_book_entries", limits=limits, what=what, where=where)
