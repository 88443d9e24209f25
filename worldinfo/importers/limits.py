"""Hard bounds for hostile input: sizes, chunk counts, decompression, JSON nesting."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from worldinfo.importers.errors import reject

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """Resource bounds applied to every input.

    Args:
        max_file_bytes: largest input accepted at all.
        max_png_chunks: most PNG chunks walked before the file is refused.
        max_inflated_bytes: most bytes any zTXt/iTXt chunk or zip member may expand to.
        max_zip_members: most members a CHARX zip may list.
        max_json_depth: deepest nesting of arrays/objects accepted in any JSON text.
        max_chat_lines: most lines read from a chat file.
    """

    max_file_bytes: int = 64 * MiB
    max_png_chunks: int = 20_000
    max_inflated_bytes: int = 32 * MiB
    max_zip_members: int = 4_096
    max_json_depth: int = 100
    max_chat_lines: int = 1_000_000


DEFAULT_LIMITS = Limits()


def inflate(data: bytes, *, limit: int, where: str, wbits: int = zlib.MAX_WBITS) -> bytes:
    """Decompress zlib ``data`` but never produce more than ``limit`` bytes.

    Args:
        data: the compressed bytes.
        limit: hard output cap; one byte more and the input is refused.
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
        raise reject(where, f"decompresses to more than {limit} bytes; refused")
    if not d.eof:
        raise reject(where, "truncated compressed data")
    return out
