"""Table rows read straight from a SQLite file's pages: salvage's way past a damaged b-tree.

When an interior page of a table is damaged, SQLite can no longer reach the leaves below it,
although they are intact. ``leaf_rows`` walks every page of the file, keeps the table-leaf
pages that are not on the freelist (freed pages keep stale rows), and decodes their cells
(following overflow chains) with the file format's own rules: varints, serial types, the
local-payload split. Anything that does not decode is skipped. The WAL is not read.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

_LEAF_TABLE = 0x0D
_INT_SIZES = (1, 2, 3, 4, 6, 8)


def _u16(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 2], "big")


def _u32(data: bytes, at: int) -> int:
    return int.from_bytes(data[at : at + 4], "big")


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for k in range(8):
        byte = data[at + k]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + k + 1
    return (value << 8) | data[at + 8], at + 9


def _columns(payload: bytes) -> list[object]:
    size, at = _varint(payload, 0)
    types = []
    while at < size:
        kind, at = _varint(payload, at)
        types.append(kind)
    pos = size
    out: list[object] = []
    for kind in types:
        if kind == 0:
            out.append(None)
        elif kind <= 6:
            n = _INT_SIZES[kind - 1]
            out.append(int.from_bytes(payload[pos : pos + n], "big", signed=True))
            pos += n
        elif kind == 7:
            out.append(struct.unpack(">d", payload[pos : pos + 8])[0])
            pos += 8
        elif kind in (8, 9):
            out.append(kind - 8)
        elif kind >= 12:
            n = (kind - 12) // 2
            raw = payload[pos : pos + n]
            out.append(raw if kind % 2 == 0 else raw.decode("utf-8"))
            pos += n
        else:
            raise ValueError("reserved serial type")
    if pos > len(payload):
        raise ValueError("payload shorter than its header says")
    return out


def _freelist(data: bytes, page_size: int, n_pages: int) -> set[int]:
    free: set[int] = set()
    trunk = _u32(data, 32)
    while 0 < trunk <= n_pages and trunk not in free:
        free.add(trunk)
        base = (trunk - 1) * page_size
        count = min(_u32(data, base + 4), (page_size - 8) // 4)
        free.update(_u32(data, base + 8 + 4 * k) for k in range(count))
        trunk = _u32(data, base)
    return free


def _payload(data: bytes, at: int, size: int, *, usable: int, page_size: int) -> bytes:
    most = usable - 35
    if size <= most:
        return data[at : at + size]
    least = (usable - 12) * 32 // 255 - 23
    local = least + (size - least) % (usable - 4)
    local = local if local <= most else least
    out = bytearray(data[at : at + local])
    page, seen = _u32(data, at + local), set()
    while len(out) < size:
        if page == 0 or page in seen or page * page_size > len(data):
            raise ValueError("broken overflow chain")
        seen.add(page)
        base = (page - 1) * page_size
        out += data[base + 4 : base + usable]
        page = _u32(data, base)
    return bytes(out[:size])


def leaf_rows(data: bytes) -> Iterator[tuple[int, list[object]]]:
    """Yield ``(rowid, columns)`` of every decodable cell of every in-use table-leaf page.

    Args:
        data: the whole database file.
    """
    if len(data) < 100 or not data.startswith(b"SQLite format 3\x00"):
        return
    page_size = _u16(data, 16)
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512:
        return
    usable = page_size - data[20]
    n_pages = len(data) // page_size
    free = _freelist(data, page_size, n_pages)
    for page in range(1, n_pages + 1):
        base = (page - 1) * page_size
        head = base + (100 if page == 1 else 0)
        if page in free or data[head] != _LEAF_TABLE:
            continue
        for k in range(_u16(data, head + 3)):
            try:
                cell = base + _u16(data, head + 8 + 2 * k)
                size, at = _varint(data, cell)
                rowid, at = _varint(data, at)
                payload = _payload(data, at, size, usable=usable, page_size=page_size)
                yield rowid, _columns(payload)
            except (IndexError, ValueError, UnicodeDecodeError, struct.error):
                continue
