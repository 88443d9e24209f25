"""``load`` and ``iter_problems``: read any supported file into engine values."""

from __future__ import annotations

import os
from collections.abc import Iterator

from worldinfo import Book, Character, Entry, Origin, TrustPolicy
from worldinfo._lazy import lazy_logger
from worldinfo._record import replace
from worldinfo.importers.chat import ChatRead, read_jsonl, read_legacy
from worldinfo.importers.detect import Sniffed, guess_format, sniff
from worldinfo.importers.errors import LorebookImportError, Problem, Reject, reject
from worldinfo.importers.limits import DEFAULT_LIMITS, Limits, check_entry_count, refuse
from worldinfo.importers.model import Imported
from worldinfo.importers.paths import path_text, stem
from worldinfo.importers.schema import iter_schema_problems
from worldinfo.importers.trust import neutralise
from worldinfo.interchange import DEFAULT_TRUST, JSONValue, marked_untrusted

log = lazy_logger(__name__)

Source = str | os.PathLike[str] | bytes


def _check_size(size: int, limits: Limits) -> None:
    if size > limits.max_file_bytes:
        message = f"input of {size} bytes is larger than max_file_bytes={limits.max_file_bytes}"
        raise refuse("$", f"{message} allows; refused", limit="max_file_bytes")


def read_bytes(src: Source, *, name: str | None, limits: Limits) -> tuple[bytes, str, str]:
    """Return ``(raw bytes, source label, file name)``; the size bound applies before reading.

    Raises:
        Reject: when the file is too large or cannot be read.
    """
    if isinstance(src, (bytes, bytearray, memoryview)):
        raw = bytes(src)
        label = name or "<bytes>"
        file_name = name or ""
    else:
        label, final = path_text(src)
        file_name = name or final
        try:
            _check_size(os.stat(label).st_size, limits)  # what Path(src).stat() opens
            with open(label, "rb") as fh:
                raw = fh.read(limits.max_file_bytes + 1)
        except OSError as exc:
            raise reject("$", f"cannot read file: {exc.strerror or exc}") from None
    _check_size(len(raw), limits)
    return raw, label, file_name


def _schema_problems(s: Sniffed) -> list[Problem]:
    if s.format == "st-chat":
        return []  # the header line is checked by read_jsonl
    problems = list(iter_schema_problems(s.format, s.obj))
    obj = s.obj
    if s.format.startswith("card-") and isinstance(obj, dict):
        data = obj.get("data") if "spec" in obj and isinstance(obj.get("data"), dict) else obj
        base = "$.data" if data is not obj else "$"
        book = data.get("character_book") if isinstance(data, dict) else None
        if isinstance(book, dict):
            problems += iter_schema_problems("character-book", book, where=f"{base}.character_book")
    if s.format == "lorebook-v3" and isinstance(obj, dict) and isinstance(obj.get("data"), dict):
        problems += iter_schema_problems("character-book", obj["data"], where="$.data")
    return problems


def _book(
    name: str, world: dict[str, JSONValue], *, origin: Origin, trust: bool, policy: TrustPolicy
) -> Book:
    """The book; with ``trust=False``, or for entries marked untrusted when exported, the
    entries are untrusted and neutralised under ``policy``.

    ``world`` is ``parse_json`` output or a converter's object built from it under keys that
    are not array indexes, so every object inside its entries is in JavaScript order."""
    book = Book.from_json(name, world, origin=origin, js_ordered=True)
    if book.entries is None:
        return book
    # an entry without ``extensions`` carries no mark: most entries, no call each
    if trust and not any(marked_untrusted(e.data) for e in book.entries if "extensions" in e.data):
        return book
    untrusted = replace(origin, trusted=False)
    entries = tuple(
        Entry(data=neutralise(dict(e.data), policy), origin=untrusted)
        if not trust or marked_untrusted(e.data)
        else e
        for e in book.entries
    )
    return Book(name=book.name, entries=entries, extra=book.extra)


def _world(s: Sniffed) -> tuple[dict[str, JSONValue], str | None]:
    """Convert a world-like document; returns the world object and a name from the file."""
    obj = s.obj
    assert isinstance(obj, dict)
    if s.format == "st-world":
        return obj, None
    from worldinfo.importers.convert import (  # the other formats only (start-up time)
        convert_agnai_memory_book,
        convert_character_book,
        convert_kobold_world_info,
        convert_novel_lorebook,
        convert_risu_lorebook,
    )

    if s.format == "character-book":
        return convert_character_book(obj), None
    if s.format == "lorebook-v3":
        data = obj["data"]
        name = data.get("name")
        return convert_character_book(data, where="$.data"), name if isinstance(name, str) else None
    if s.format == "novelai-lorebook":
        return convert_novel_lorebook(obj), None
    if s.format == "novelai-story":
        return convert_novel_lorebook(obj["content"]["lorebook"], where="$.content.lorebook"), None
    if s.format == "agnai-memory":
        return convert_agnai_memory_book(obj), None
    if s.format == "risu-lorebook":
        return convert_risu_lorebook(obj), None
    if s.format == "kobold-story":
        return convert_kobold_world_info(obj["worldinfo"]), None
    raise reject("$", f"no reader for format {s.format}")


def _build(
    s: Sniffed,
    raw: bytes,
    *,
    label: str,
    file_name: str,
    trust: bool,
    limits: Limits,
    policy: TrustPolicy,
) -> Imported:
    common = Imported(
        format=s.format, source=label, carrier=s.carrier, extracted_from=s.extracted_from
    )
    if s.format in ("st-chat", "tavernai-chat"):
        chat: ChatRead = (
            read_jsonl(raw, limits=limits)
            if s.format == "st-chat"
            else read_legacy(s.obj, limits=limits)
        )
        carrier = "jsonl" if s.format == "st-chat" else "json"
        header = {k: v for k, v in chat.header.items() if k != "chat_metadata"}
        return replace(
            common,
            carrier=carrier,
            chat=chat.messages,
            chat_metadata=chat.metadata,
            chat_header=header,
        )
    if s.format.startswith("card-"):
        assert isinstance(s.obj, dict)
        avatar = file_name if s.carrier != "json" else ""
        from worldinfo.importers.cards import read_card  # cards only (start-up time)

        card = read_card(s.obj, avatar=avatar)
        books: tuple[Book, ...] = ()
        if card.world is not None and card.book_name is not None:
            origin = Origin(
                file=file_name or label,
                format=s.format,
                container=card.character.name or None,
                trusted=trust,
            )
            books = (_book(card.book_name, card.world, origin=origin, trust=trust, policy=policy),)
        character: Character = card.character
        return replace(common, books=books, character=character, card=s.obj)
    world, inner_name = _world(s)
    name = inner_name or stem(file_name) or "imported"
    origin = Origin(file=file_name or label, format=s.format, container=name, trusted=trust)
    book = _book(name, world, origin=origin, trust=trust, policy=policy)
    return replace(common, books=(book,))


def analyse(
    src: Source,
    *,
    name: str | None = None,
    trust: bool = True,
    st_compatible: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    policy: TrustPolicy = DEFAULT_TRUST,
) -> tuple[Imported | None, str, str, tuple[Problem, ...]]:
    """Read ``src`` and return ``(result or None, source label, format, problems)``.

    Never raises for bad content: every problem is returned instead; what did not stop the
    import (a PNG chunk with a bad CRC) is in ``result.warnings``.
    """
    label = (name or "<bytes>") if isinstance(src, (bytes, bytearray, memoryview)) else str(src)
    fmt = guess_format(name or ("" if isinstance(src, (bytes, bytearray, memoryview)) else label))
    try:
        raw, label, file_name = read_bytes(src, name=name, limits=limits)
        s = sniff(raw, file_name=file_name, limits=limits, st_compatible=st_compatible)
        fmt = s.format
        check_entry_count(s.format, s.obj, limits=limits)
        problems = _schema_problems(s)
        if problems:
            return None, label, fmt, tuple(problems)
        result = _build(
            s, raw, label=label, file_name=file_name, trust=trust, limits=limits, policy=policy
        )
        if s.carrier == "png":
            from worldinfo.importers.png import crc_warnings

            result = replace(result, warnings=crc_warnings(raw, limits=limits))
        return result, label, fmt, ()
    except Reject as exc:
        return None, label, exc.fmt or fmt, exc.problems
    except (
        ValueError,
        TypeError,
        KeyError,
        IndexError,
        AttributeError,
        RecursionError,
        OverflowError,
        MemoryError,
        AssertionError,
    ) as exc:  # a bug: report, never crash
        log.exception("internal error while importing %s", label)
        return None, label, fmt, (Problem("$", f"internal error (please report): {exc!r}"),)


def load(
    src: Source,
    *,
    name: str | None = None,
    trust: bool = True,
    st_compatible: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    policy: TrustPolicy = DEFAULT_TRUST,
) -> Imported:
    """Import one file (path or bytes): detect its format and convert it.

    Args:
        src: a path, or the file's bytes.
        name: the file name to use (book names, ``.lorebook`` hints); defaults to the
            path's name.
        trust: ``False``: the entries are untrusted, stored neutralised under ``policy``
            (see ``importers.trust``); the engine enforces the policy on them too.
        st_compatible: read exactly what SillyTavern's importers read and nothing more
            (no ``.story`` unwrapping, no zTXt/iTXt, no chunk fallback, no KoboldAI).
        limits: resource bounds for hostile input.
        policy: what untrusted entries may not do (``worldinfo.trust.TrustPolicy``).

    Returns:
        The imported books, card fields and chat.

    Raises:
        LorebookImportError: naming the file, the format and every problem.
    """
    result, label, fmt, problems = analyse(
        src, name=name, trust=trust, st_compatible=st_compatible, limits=limits, policy=policy
    )
    if result is None:
        raise LorebookImportError(label, fmt, problems=problems)
    return result


def iter_problems(
    src: Source,
    *,
    name: str | None = None,
    st_compatible: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[Problem]:
    """Yield every problem that stops ``src`` from importing (nothing when it imports)."""
    _, _, _, problems = analyse(src, name=name, st_compatible=st_compatible, limits=limits)
    yield from problems
