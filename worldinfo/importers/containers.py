"""Containers around card JSON: PNG text chunks (SillyTavern's precedence) and CHARX zips."""

from __future__ import annotations

from worldinfo._record import record
from worldinfo.importers.errors import Problem, Reject, reject
from worldinfo.importers.jsonread import decode_text, load_json
from worldinfo.importers.limits import Limits, check_count, refuse
from worldinfo.importers.png import TextChunk, text_chunks
from worldinfo.interchange import JSONValue

ZIP_MAGIC = b"PK\x03\x04"


@record
class Extracted:
    """Card (or NovelAI) JSON found inside a container.

    Args:
        obj: the parsed JSON object.
        chunk: the PNG keyword or zip member it came from (``ccv3``, ``chara``,
            ``naidata``, ``card.json``).
        where: JSON-path prefix for problems inside ``obj``.
    """

    obj: JSONValue
    chunk: str
    where: str


def _b64_json(tc: TextChunk, *, limits: Limits) -> JSONValue:
    where = f"$.chunks.{tc.index}"
    text = tc.text.strip()
    if text.startswith("rcc||"):
        raise reject(where, "encrypted RisuAI card (rcc||); cannot be read without its password")
    import base64  # only for PNG cards (start-up time: a world file needs none of these)
    import binascii

    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4), validate=False)
    except (binascii.Error, ValueError):
        raise reject(where, f"'{tc.keyword}' chunk is not base64") from None
    return load_json(raw, bounds=limits.json_bounds, where=where)


def _ordered(chunks: tuple[TextChunk, ...], *, st_compatible: bool) -> list[TextChunk]:
    """SillyTavern: tEXt only, first ``ccv3`` else first ``chara`` (keywords case-folded).
    Lenient mode then tries the other candidates, compressed chunks last."""
    by_kw = [
        c
        for kw in ("ccv3", "chara")
        for c in chunks
        if c.kind == "tEXt" and c.keyword.lower() == kw
    ]
    if st_compatible:
        return by_kw[:1]
    seen = {c.index for c in by_kw}
    rest = [
        c
        for kw in ("ccv3", "chara")
        for c in chunks
        if c.keyword.lower() == kw and c.index not in seen
    ]
    return by_kw + rest


def card_from_png(raw: bytes, *, limits: Limits, st_compatible: bool) -> Extracted:
    """Find the card JSON (or a NovelAI ``naidata`` book) in a PNG.

    Raises:
        Reject: when no usable card chunk exists (the last parse problem is reported).
    """
    chunks = text_chunks(raw, limits=limits, compressed=not st_compatible)
    problems: list[Problem] = []
    for tc in _ordered(chunks, st_compatible=st_compatible):
        try:
            obj = _b64_json(tc, limits=limits)
        except Reject as exc:
            problems.extend(exc.problems)
            continue
        if isinstance(obj, dict):
            return Extracted(obj=obj, chunk=tc.keyword.lower(), where="$")
        problems.append(Problem(f"$.chunks.{tc.index}", "card JSON is not an object"))
    if problems:
        raise Reject(problems)
    for tc in chunks:
        if tc.kind == "tEXt" and tc.keyword == "naidata":
            obj = _b64_json(tc, limits=limits)
            if not isinstance(obj, dict):
                raise reject(f"$.chunks.{tc.index}", "naidata JSON is not an object")
            return Extracted(obj=obj, chunk="naidata", where="$")
    raise reject("$", "PNG has no character card (no 'chara' or 'ccv3' text chunk)")


def _safe_member(name: str) -> bool:
    parts = name.replace("\\", "/").split("/")
    return not (name.startswith(("/", "\\")) or ":" in parts[0] or ".." in parts)


def _too_large(limits: Limits) -> Reject:
    message = f"card.json inflates past max_inflated_bytes={limits.max_inflated_bytes}; refused"
    return refuse("$.card.json", message, limit="max_inflated_bytes")


def card_from_charx(raw: bytes, *, limits: Limits) -> Extracted:
    """Read ``card.json`` from a CHARX zip (any prefix before the first local header).

    Refuses path traversal in any member name, encrypted members, too many members and a
    ``card.json`` that inflates past ``limits.max_inflated_bytes``.

    Raises:
        Reject: on any of the above, a broken zip or a missing ``card.json``.
    """
    import io
    import zipfile  # only for CHARX files (start-up time)
    import zlib

    start = raw.find(ZIP_MAGIC)
    if start < 0:
        raise reject("$", "not a zip archive")
    try:
        with zipfile.ZipFile(io.BytesIO(raw[start:])) as zf:
            infos = zf.infolist()
            what, limit = "zip members", "max_zip_members"
            check_count(len(infos), limit=limit, limits=limits, what=what, where="$")
            bad = [i.filename for i in infos if not _safe_member(i.filename)]
            if bad:
                raise reject("$", f"zip member path escapes the archive: {bad[0]!r}; refused")
            info = next((i for i in infos if i.filename == "card.json"), None)
            if info is None:
                raise reject("$", "CHARX archive has no card.json")
            if info.flag_bits & 0x1:
                raise reject("$.card.json", "encrypted zip member; refused")
            if info.file_size > limits.max_inflated_bytes:
                raise _too_large(limits)
            with zf.open(info) as fh:
                data = fh.read(limits.max_inflated_bytes + 1)
    except Reject:
        raise
    except (
        zipfile.BadZipFile,
        zlib.error,
        NotImplementedError,
        RuntimeError,
        OSError,
        EOFError,
        ValueError,
    ) as exc:
        raise reject("$", f"broken zip archive ({exc.__class__.__name__}: {exc})") from None
    if len(data) > limits.max_inflated_bytes:
        raise _too_large(limits)
    decode_text(data, where="$.card.json")
    obj = load_json(data, bounds=limits.json_bounds, where="$.card.json")
    if not isinstance(obj, dict):
        raise reject("$.card.json", "card JSON is not an object")
    return Extracted(obj=obj, chunk="card.json", where="$")
