"""Registry of case-format runners and the file walker behind ``worldinfo golden``."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from worldinfo._js import JSONValue, parse_json
from worldinfo._record import record


@record
class Outcome:
    """The result of one checked unit of a golden file.

    Args:
        case_id: readable id, e.g. ``st/feat-budget-cap/step-2``.
        ok: whether it matched the expectation.
        detail: for a failure, the first differing field and both values (short).
        skipped: why the case could not run here (e.g. its input file is not in this
            checkout); a skipped outcome has ``ok`` false and counts as neither.
    """

    case_id: str
    ok: bool
    detail: str = ""
    skipped: str = ""


Runner = Callable[[JSONValue, Path], Iterator[Outcome]]
_RUNNERS: dict[str, Runner] = {}

# Modules that register runners for their formats when imported.
_RUNNER_MODULES = (
    "worldinfo.conformance.st",
    "worldinfo.conformance.js_regex",
    "worldinfo.conformance.st_import",
    "worldinfo.conformance.zwaif",
    "worldinfo.conformance.st_macros",
)


def register(fmt: str) -> Callable[[Runner], Runner]:
    """Decorator: register ``fn`` as the runner for case files whose ``format`` is ``fmt``."""

    def deco(fn: Runner) -> Runner:
        _RUNNERS[fmt] = fn
        return fn

    return deco


def runners() -> dict[str, Runner]:
    """Return every registered runner, importing the runner modules that exist."""
    for name in _RUNNER_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    return dict(_RUNNERS)


def _case_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*.json") if q.is_file())
        else:
            yield p


def run_file(path: Path) -> Iterator[Outcome]:
    """Run one case file; files of an unknown format (or no format) yield nothing."""
    data = parse_json(path.read_bytes())
    fmt = data.get("format") if isinstance(data, dict) else None
    runner = runners().get(fmt) if isinstance(fmt, str) else None
    if runner is None:
        return
    yield from runner(data, path)


def run_paths(paths: Iterable[str | Path]) -> Iterator[Outcome]:
    """Run every case file found under ``paths`` (files or folders)."""
    for f in _case_files(paths):
        yield from run_file(f)
