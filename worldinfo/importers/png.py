"""PNG chunks: bounded reading of text chunks, and card writing that keeps other chunks."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator, Sequence

from worldinfo._record import record
from worldinfo.importers.errors import Problem, Reject, reject
from worldinfo.importers.limits import Limits, inflate, refuse

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CARD_KEYWORDS = ("chara", "ccv3")


@record
class Chunk:
    """One PNG chunk: its type, its data and where its bytes (with CRC) sit in the file."""

    type: bytes
    data: bytes
    start: int
    end: int


@record
class TextChunk:
    """A decoded ``tEXt`` / ``zTXt`` / ``iTXt`` chunk.

    Args:
        kind: ``tEXt``, ``zTXt`` or ``iTXt``.
        keyword: the keyword as written (Latin-1).
        text: the text (Latin-1 for tEXt/zTXt, UTF-8 for iTXt).
        index: the chunk's position in the file (for messages).
    """

    kind: str
    keyword: str
    text: str
    index: int


def is_png(raw: bytes) -> bool:
    """True when ``raw`` starts with the PNG signature."""
    return raw.startswith(SIGNATURE)


def iter_chunks(raw: bytes, *, limits: Limits) -> Iterator[Chunk]:
    """Walk every chunk up to ``IEND`` (bounded by ``limits.max_png_chunks``).

    Raises:
        Reject: on a bad signature, a truncated chunk or too many chunks.
    """
    if not is_png(raw):
        raise reject("$", "not a PNG file (bad signature)")
    pos, count = len(SIGNATURE), 0
    while pos < len(raw):
        count += 1
        if count > limits.max_png_chunks:
            message = f"more than max_png_chunks={limits.max_png_chunks} PNG chunks; refused"
            raise refuse("$", message, limit="max_png_chunks")
        if pos + 8 > len(raw):
            raise reject(f"$.chunks.{count - 1}", "truncated PNG chunk header")
        length, ctype = struct.unpack(">I4s", raw[pos : pos + 8])
        end = pos + 8 + length
        if length > 0x7FFFFFFF or end + 4 > len(raw):
            raise reject(f"$.chunks.{count - 1}", "truncated PNG chunk")
        yield Chunk(type=ctype, data=raw[pos + 8 : end], start=pos, end=end + 4)
        pos = end + 4
        if ctype == b"IEND":
            return


def crc_warnings(raw: bytes, *, limits: Limits) -> tuple[Problem, ...]:
    """One warning when chunks' CRCs do not match their bytes (such files are still read,
    as SillyTavern reads them); located at the first bad chunk, naming every bad one.

    Raises:
        Reject: when ``raw`` is not a well-formed PNG.
    """
    bad: list[tuple[int, str]] = []
    for i, chunk in enumerate(iter_chunks(raw, limits=limits)):
        stored = int.from_bytes(raw[chunk.end - 4 : chunk.end], "big")
        if zlib.crc32(chunk.data, zlib.crc32(chunk.type)) != stored:
            bad.append((i, chunk.type.decode("latin-1")))
    if not bad:
        return ()
    kinds = ", ".join(f"{kind} #{i}" for i, kind in bad[:8]) + (", ..." if len(bad) > 8 else "")
    plural = "chunk" if len(bad) == 1 else "chunks"
    message = f"bad CRC in {len(bad)} PNG {plural} ({kinds}); read anyway"
    return (Problem(f"$.chunks.{bad[0][0]}", message),)


def _split_keyword(data: bytes, where: str) -> tuple[str, bytes]:
    keyword, sep, rest = data.partition(b"\x00")
    if not sep:
        raise reject(where, "text chunk without a keyword separator")
    return keyword.decode("latin-1"), rest


def decode_text_chunk(chunk: Chunk, index: int, *, limits: Limits) -> TextChunk | None:
    """Decode a text chunk; ``None`` for other chunk types.

    Raises:
        Reject: on malformed or over-large compressed text.
    """
    where = f"$.chunks.{index}"
    kind = chunk.type.decode("latin-1")
    if kind == "tEXt":
        kw, rest = _split_keyword(chunk.data, where)
        return TextChunk(kind=kind, keyword=kw, text=rest.decode("latin-1"), index=index)
    if kind == "zTXt":
        kw, rest = _split_keyword(chunk.data, where)
        if not rest or rest[0] != 0:
            raise reject(where, "zTXt chunk with an unknown compression method")
        text = inflate(rest[1:], limit=limits.max_inflated_bytes, where=where)
        return TextChunk(kind=kind, keyword=kw, text=text.decode("latin-1"), index=index)
    if kind == "iTXt":
        kw, rest = _split_keyword(chunk.data, where)
        if len(rest) < 2:
            raise reject(where, "truncated iTXt chunk")
        flag, method, rest = rest[0], rest[1], rest[2:]
        _lang, _, rest = rest.partition(b"\x00")
        _translated, _, body = rest.partition(b"\x00")
        if flag:
            if method != 0:
                raise reject(where, "iTXt chunk with an unknown compression method")
            body = inflate(body, limit=limits.max_inflated_bytes, where=where)
        try:
            decoded = body.decode("utf-8")
        except UnicodeDecodeError:
            raise reject(where, "iTXt text is not UTF-8") from None
        return TextChunk(kind=kind, keyword=kw, text=decoded, index=index)
    return None


def text_chunks(raw: bytes, *, limits: Limits, compressed: bool) -> tuple[TextChunk, ...]:
    """Return the text chunks of a PNG: ``tEXt`` only, or also ``zTXt``/``iTXt``.

    A malformed compressed chunk is skipped when it is not a card chunk.

    Raises:
        Reject: on a malformed file, or a malformed card chunk.
    """
    out: list[TextChunk] = []
    for i, chunk in enumerate(iter_chunks(raw, limits=limits)):
        if chunk.type not in (b"tEXt", b"zTXt", b"iTXt"):
            continue
        if chunk.type != b"tEXt" and not compressed:
            continue
        try:
            tc = decode_text_chunk(chunk, i, limits=limits)
        except Reject as exc:
            kw = chunk.data.partition(b"\x00")[0].decode("latin-1").lower()
            if kw in CARD_KEYWORDS or any("refused" in p.message for p in exc.problems):
                raise
            continue
        if tc is not None:
            out.append(tc)
    return tuple(out)


def _chunk_bytes(ctype: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(ctype + data) & 0xFFFFFFFF
    return struct.pack(">I4s", len(data), ctype) + data + struct.pack(">I", crc)


def replace_text_chunks(
    raw: bytes,
    new: Sequence[tuple[str, str]],
    *,
    limits: Limits,
    drop: Sequence[str] = CARD_KEYWORDS,
) -> bytes:
    """Return ``raw`` with every text chunk keyed ``drop`` removed and ``new`` tEXt chunks
    inserted before ``IEND``; all other chunks are kept byte for byte.

    Args:
        raw: the original PNG.
        new: ``(keyword, latin-1 text)`` pairs to write.
        limits: bounds for walking the input.
        drop: keywords (case-insensitive) whose text chunks are removed.

    Raises:
        Reject: when ``raw`` is not a well-formed PNG.
    """
    lowered = {d.lower() for d in drop}
    parts: list[bytes] = [SIGNATURE]
    seen_end = False
    for chunk in iter_chunks(raw, limits=limits):
        if chunk.type in (b"tEXt", b"zTXt", b"iTXt"):
            kw = chunk.data.partition(b"\x00")[0].decode("latin-1").lower()
            if kw in lowered:
                continue
        if chunk.type == b"IEND":
            seen_end = True
            for kw, text in new:
                body = kw.encode("latin-1") + b"\x00" + text.encode("latin-1")
                parts.append(_chunk_bytes(b"tEXt", body))
        parts.append(raw[chunk.start : chunk.end])
    if not seen_end:
        raise Reject([Problem("$", "PNG has no IEND chunk")])
    return b"".join(parts)
