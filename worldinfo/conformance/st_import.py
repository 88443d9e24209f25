"""Runner for ``st-import-golden/1``: SillyTavern's own conversions of the import corpus.

Each golden file names an input (a corpus file, or an inline object) and the converter
SillyTavern ran on it. The input is read with ``importers.load(..., st_compatible=True)``
and the converted book (``entries`` plus ``originalData`` for cards) must equal ``expect``
after ``worldinfo._js.canonical``; an ``expect`` of ``{"error": ...}`` must be rejected.
Corpus files are looked up by ``find_corpus_file`` (the shared corpus, then the copies
bundled under ``tests/data/corpus``); a case whose input is in neither is skipped, naming it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from worldinfo._js import JSONValue, canonical, stringify
from worldinfo.conformance.base import Outcome, register

_REPO = Path(__file__).resolve().parents[2]
_CONVERTER_FORMATS = {
    "convertCharacterBook": ("card-v1", "card-v2", "card-v3"),
    "convertNovelLorebook": ("novelai-lorebook",),
    "convertRisuLorebook": ("risu-lorebook",),
    "convertAgnaiMemoryBook": ("agnai-memory",),
}


def corpus_dirs() -> tuple[Path, ...]:
    """Where corpus files are looked for, in order.

    ``$WORLDINFO_CORPUS`` (if set), ``$WORLDINFO_SHARED/corpus`` (default
    ``<repo>/../shared/corpus``), then the licence-compatible copies in
    ``<repo>/tests/data/corpus``.
    """
    shared = os.environ.get("WORLDINFO_SHARED")
    dirs = [Path(shared) / "corpus" if shared else _REPO.parent / "shared" / "corpus"]
    env = os.environ.get("WORLDINFO_CORPUS")
    if env:
        dirs.insert(0, Path(env))
    dirs.append(_REPO / "tests" / "data" / "corpus")
    return tuple(dirs)


def find_corpus_file(rel: str) -> Path | None:
    """The first of ``corpus_dirs()`` that holds ``rel`` (e.g. ``novelai/x.lorebook``)."""
    for folder in corpus_dirs():
        if (folder / rel).is_file():
            return folder / rel
    return None


def _first_diff(a: JSONValue, b: JSONValue, path: str = "$") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: {'missing' if k not in a else 'present'} vs expected"
            if a[k] != b[k]:
                return _first_diff(a[k], b[k], f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return _first_diff(x, y, f"{path}.{i}")
    return f"{path}: got {stringify(a)[:80]} expected {stringify(b)[:80]}"


@register("st-import-golden/1")
def run(case: JSONValue, path: Path) -> Iterator[Outcome]:
    """Check one import golden file; yields ``import/<file stem>``."""
    from worldinfo import importers  # the engine never imports importers; only this runner does

    case_id = f"import/{path.stem}"
    if case.get("input") == "inline":
        src: bytes | Path = stringify(case.get("input_object")).encode("utf-8")
        name = path.name
    else:
        rel = str(case.get("input"))
        found = find_corpus_file(rel)
        if found is None:
            why = f"corpus/{rel} is not in this checkout (set WORLDINFO_SHARED)"
            yield Outcome(case_id=case_id, ok=False, skipped=why)
            return
        src, name = found, found.name
    expect = case.get("expect")
    result, _, fmt, problems = importers.analyse(src, name=name, st_compatible=True)
    if isinstance(expect, dict) and set(expect) == {"error"}:
        ok = result is None
        yield Outcome(case_id=case_id, ok=ok, detail="" if ok else f"imported as {fmt}")
        return
    if result is None:
        detail = f"rejected as {fmt}: {problems[0] if problems else '?'}"
        yield Outcome(case_id=case_id, ok=False, detail=detail)
        return
    allowed = _CONVERTER_FORMATS.get(str(case.get("converter")), ())
    if fmt not in allowed:
        yield Outcome(case_id=case_id, ok=False, detail=f"read as {fmt}, not {allowed}")
        return
    if result.extracted_from != case.get("extracted_from"):
        detail = f"extracted from {result.extracted_from}, expected {case.get('extracted_from')}"
        yield Outcome(case_id=case_id, ok=False, detail=detail)
        return
    if not result.books:
        yield Outcome(case_id=case_id, ok=False, detail="no book imported")
        return
    got = canonical(importers.world_json(result.books[0]))
    want = canonical(expect)
    ok = got == want
    yield Outcome(case_id=case_id, ok=ok, detail="" if ok else _first_diff(got, want))
