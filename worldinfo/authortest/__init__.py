"""Activation tests for lorebook authors: chats and the entries that must / must not fire.

A ``*.witest.json`` file (schema: ``schemas/authortest.schema.json``) names books (any
importable format, paths relative to the file), optional settings, character and persona, and
cases. Each case is one SillyTavern scan of a chat; it passes when every ``fire`` entry
activated, no ``not_fire`` entry did, and (with ``only``) nothing else did. ``load`` validates
a file and resolves every entry reference (``AuthorTestError`` names the file and JSON path);
``run`` scans each case with a traced ``Session`` so failures can say why.

Example::

    {"books": ["Eldoria.json"],
     "cases": [{"name": "the glade", "chat": ["User: Is the glade safe?"],
                "fire": ["glade"], "not_fire": ["shadowfang"]}]}
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from worldinfo import _js
from worldinfo.authortest.loader import load_suite
from worldinfo.authortest.model import (
    SUFFIX,
    AuthorTestError,
    Case,
    CaseResult,
    Importer,
    Ref,
    Step,
    Suite,
    UnreadableFile,
)
from worldinfo.session import Session
from worldinfo.trace import TraceEvent

__all__ = [
    "SUFFIX",
    "AuthorTestError",
    "Case",
    "CaseResult",
    "Importer",
    "Ref",
    "Step",
    "Suite",
    "UnreadableFile",
    "case_lines",
    "load",
    "run",
    "run_case",
    "run_file",
]


def load(path: str | Path, *, importer: Importer, text: str | None = None) -> Suite:
    """Read, validate and resolve a test file (``text``: its contents, already read; book
    paths are still relative to ``path``'s folder).

    Raises:
        AuthorTestError: the file is unreadable, breaks the schema, names a book that cannot
            be imported, or refers to an entry that does not exist (or is ambiguous).
    """
    return load_suite(Path(path), importer=importer, text=text)


def run(suite: Suite) -> list[CaseResult]:
    """Run every case of a suite, in order."""
    return [run_case(suite, case) for case in suite.cases]


def run_file(path: str | Path, *, importer: Importer) -> list[CaseResult]:
    """``run(load(path))``."""
    return run(load(path, importer=importer))


def run_case(suite: Suite, case: Case) -> CaseResult:
    """Scan one case's chat in a fresh session (then each later step) and compare."""
    session = Session(
        books=suite.books,
        settings=case.settings,
        global_books=suite.global_books,
        character=suite.character,
        persona=suite.persona,
        chat=case.chat,
        max_context=suite.max_context if case.max_context is None else case.max_context,
        rng=_js.mulberry32(case.seed),
    )
    first = Step(type=case.type, fire=case.fire, not_fire=case.not_fire, only=case.only)
    missing: list[str] = []
    unexpected: list[str] = []
    fired: list[str] = []
    for n, step in enumerate((first, *case.then)):
        result = session.generate(step.type, append=step.append, trace=True)
        where = f"step {n}: " if n else ""
        if result.error is not None:
            return CaseResult(case=case, error=where + result.error)
        verdicts = result.trace.verdicts if result.trace is not None else {}
        fired = [f"{w}.{_js.to_string(u)}" for w, u in result.activated_keys]
        missing += [
            f"{where}{r.label} ({_why(verdicts.get(r.key))})"
            for r in step.fire
            if r.key not in fired
        ]
        wanted = {r.key for r in step.fire}
        banned = {r.key: r.label for r in step.not_fire}
        for key in fired:
            if key in banned or (step.only and key not in wanted):
                label = banned.get(key) or _label(suite, key)
                unexpected.append(f"{where}{label} ({_why(verdicts.get(key))})")
    return CaseResult(
        case=case, missing=tuple(missing), unexpected=tuple(unexpected), activated=tuple(fired)
    )


def _why(event: TraceEvent | None) -> str:
    if event is None:
        return "not scanned: its book is not in play"
    detail = event.detail
    if event.reason == "key" and "key" in detail:
        where = detail.get("found_in", "scan text")
        return f"key {_js.to_string(detail['key'])!r} found in {_js.to_string(where)}"
    if event.reason == "probability" and "roll" in detail:
        return f"probability roll {_js.to_number(detail['roll']):.1f}"
    if event.reason == "budget" and "tokens" in detail:
        return f"budget: {_js.to_string(detail['tokens'])} >= {_js.to_string(detail.get('budget'))}"
    return event.reason.replace("_", " ")


def _label(suite: Suite, key: str) -> str:
    for name, book in suite.books.items():
        for e in book.entries or ():
            if f"{name}.{_js.to_string(e.uid)}" == key:
                return f"{e.comment!r} ({key})" if e.comment else key
    return key


def case_lines(suite: Suite, results: Sequence[CaseResult]) -> list[str]:
    """One line per failing case: ``FILE::case name: why``."""
    return [f"{suite.path}::{r.case.name}: {r.describe()}" for r in results if not r.ok]
