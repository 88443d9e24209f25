"""Hostile input: decompression bombs, zip path traversal, deep nesting, huge inputs."""

from __future__ import annotations

import base64
import io
import json
import struct
import tracemalloc
import zipfile
import zlib

import pytest

from worldinfo import importers
from worldinfo.importers import Limits, LorebookImportError
from worldinfo.importers.export import png_card_bytes
from worldinfo.importers.png import SIGNATURE

GIB = 1 << 30
CARD = {
    "spec": "chara_card_v2",
    "spec_version": "2.0",
    "data": {
        "name": "Tester",
        "description": "d",
        "character_book": {
            "entries": [{"keys": ["k"], "content": "c", "enabled": True, "insertion_order": 1}]
        },
    },
}


def _chunk(ctype: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I4s", len(data), ctype) + data + struct.pack(">I", zlib.crc32(ctype + data))
    )


def _png(*chunks: bytes) -> bytes:
    ihdr = _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0))
    idat = _chunk(b"IDAT", zlib.compress(b"\x00" * 5))
    return SIGNATURE + ihdr + idat + b"".join(chunks) + _chunk(b"IEND", b"")


@pytest.fixture(scope="module")
def gib_zlib() -> bytes:
    """A valid zlib stream of 1 GiB of zeros (~1 MB), built from repeatable flush segments."""
    z = bytes(1 << 20)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    seg = c.compress(z) + c.flush(zlib.Z_FULL_FLUSH)
    tail = zlib.compressobj(9, zlib.DEFLATED, -15).flush()
    adler = 1
    for _ in range(GIB // len(z)):
        adler = zlib.adler32(z, adler)
    return b"\x78\xda" + seg * (GIB // len(z)) + tail + struct.pack(">I", adler)


def _refused_fast(src: bytes, *, name: str = "x.png") -> str:
    """Refused without inflating the bomb: the peak of memory allocated while importing
    stays a small multiple of the inflation limit (1 MiB here), far below the 1 GiB a full
    inflation needs. (No clock: speed belongs in bench/.)"""
    limit = 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(LorebookImportError) as info:
            importers.load(src, name=name, limits=Limits(max_inflated_bytes=limit))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * limit + 4 * len(src), f"peak {peak} bytes: the bomb was inflated"
    assert "internal error" not in str(info.value)
    return str(info.value)


def test_ztxt_bomb_refused_without_inflating(gib_zlib: bytes) -> None:
    png = _png(_chunk(b"zTXt", b"chara\x00\x00" + gib_zlib))
    assert "refused" in _refused_fast(png)


def test_itxt_bomb_refused_without_inflating(gib_zlib: bytes) -> None:
    png = _png(_chunk(b"iTXt", b"ccv3\x00\x01\x00\x00\x00" + gib_zlib))
    assert "refused" in _refused_fast(png)


def test_bomb_in_unrelated_chunk_still_refused(gib_zlib: bytes) -> None:
    good = base64.b64encode(json.dumps(CARD).encode()).decode("ascii")
    png = _png(
        _chunk(b"tEXt", b"chara\x00" + good.encode()), _chunk(b"zTXt", b"x\x00\x00" + gib_zlib)
    )
    assert "refused" in _refused_fast(png)


def _zip_with(name: str, compressed: bytes, size: int, crc: int) -> bytes:
    """A one-member zip written by hand (deflate), so sizes can be anything."""
    fname = name.encode()
    local = (
        struct.pack(
            "<IHHHHHIIIHH",
            0x04034B50,
            20,
            0,
            8,
            0,
            0,
            crc,
            len(compressed),
            size & 0xFFFFFFFF,
            len(fname),
            0,
        )
        + fname
        + compressed
    )
    central = struct.pack(
        "<IHHHHHHIIIHHHHHII",
        0x02014B50,
        20,
        20,
        0,
        8,
        0,
        0,
        crc,
        len(compressed),
        size & 0xFFFFFFFF,
        len(fname),
        0,
        0,
        0,
        0,
        0,
        0,
    )
    central += fname
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(local), 0)
    return local + central + end


def test_zip_bomb_refused_without_inflating(gib_zlib: bytes) -> None:
    raw_deflate = gib_zlib[2:-4]
    honest = _zip_with("card.json", raw_deflate, GIB, 0)
    assert "refused" in _refused_fast(honest, name="bomb.charx")
    lying = _zip_with("card.json", raw_deflate, 100, 0)  # claims 100 bytes
    assert "zip" in _refused_fast(lying, name="bomb.charx")


def _charx(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize(
    "evil", ["../evil.txt", "assets/../../evil", "/etc/passwd", "C:/x", "a\\..\\b"]
)
def test_zip_path_traversal_refused(evil: str) -> None:
    raw = _charx({"card.json": json.dumps(CARD).encode(), evil: b"x"})
    assert "escapes" in _refused_fast(raw, name="t.charx")


def test_charx_reads_card_json_after_a_prefix() -> None:
    raw = b"\xff\xd8\xff\xe0 jpeg preview " + _charx({"card.json": json.dumps(CARD).encode()})
    imp = importers.load(raw, name="t.charx")
    assert imp.carrier == "charx" and imp.character is not None
    assert imp.character.name == "Tester" and len(imp.books[0].entries or ()) == 1


def test_json_depth_limited() -> None:
    deep = b"[" * 200_000 + b"]" * 200_000
    assert "deeper" in _refused_fast(deep, name="deep.json")
    obj = b'{"entries": {"0": ' + b'{"a":' * 150 + b"1" + b"}" * 150 + b"}}"
    assert "deeper" in _refused_fast(obj, name="deep.json")


def test_deep_json_inside_png_chunk() -> None:
    deep = base64.b64encode(b"[" * 50_000 + b"]" * 50_000)
    assert "deeper" in _refused_fast(_png(_chunk(b"tEXt", b"chara\x00" + deep)))


def test_file_size_limit() -> None:
    with pytest.raises(LorebookImportError, match="larger than"):
        importers.load(b'{"entries": {}}' + b" " * 2000, limits=Limits(max_file_bytes=1000))


def test_png_chunk_count_limit() -> None:
    many = _png(*[_chunk(b"tEXt", b"x\x00y")] * 30_000)
    assert "chunks" in _refused_fast(many)


def test_truncated_png_rejected() -> None:
    png = png_card_bytes(CARD)
    with pytest.raises(LorebookImportError, match="truncated"):
        importers.load(png[:-20], name="t.png")


def test_control_characters_kept_verbatim() -> None:
    content = "a\u0000b\u0007c\u001b[31md\u2028e\ud800"
    world = {"entries": {"0": {"uid": 0, "key": ["\u0001k"], "content": content}}}
    imp = importers.load(json.dumps(world).encode(), name="ctl.json")
    entry = (imp.books[0].entries or ())[0]
    assert entry.content == content and entry.keys == ["\u0001k"]


def test_raw_control_character_in_json_string_is_invalid_like_json_parse() -> None:
    with pytest.raises(LorebookImportError, match="invalid JSON"):
        importers.load(b'{"entries": {"0": {"content": "a\x01b"}}}', name="x.json")


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity"])
def test_non_json_number_literals_rejected(literal: bytes) -> None:
    with pytest.raises(LorebookImportError, match="not valid JSON"):
        importers.load(b'{"entries": {"0": {"order": ' + literal + b"}}}", name="x.json")


def test_huge_integer_rejected_cleanly() -> None:
    with pytest.raises(LorebookImportError):
        importers.load(b'{"entries": {"0": {"order": ' + b"9" * 5000 + b"}}}", name="x.json")


def test_encrypted_risu_card_reported() -> None:
    png = _png(_chunk(b"tEXt", b"chara\x00rcc||rccv1||abc||def||ghi"))
    with pytest.raises(LorebookImportError, match="encrypted"):
        importers.load(png, name="enc.png")


def test_not_utf8_rejected() -> None:
    with pytest.raises(LorebookImportError, match="UTF-8"):
        importers.load(b'{"entries": {"0": {"content": "\xff\xfe"}}}', name="x.json")
