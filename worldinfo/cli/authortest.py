"""``worldinfo test FILE...``: run lorebook authors' activation tests (``*.witest.json``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from worldinfo._js import JSONValue
from worldinfo.authortest import (
    SUFFIX,
    AuthorTestError,
    Importer,
    Suite,
    UnreadableFile,
    case_lines,
    load,
    run,
)
from worldinfo.cli._commands import help_of
from worldinfo.cli._conventions import (
    STDIN_NAME,
    STDIO,
    add_json_flag,
    cannot_read,
    check_readable,
    check_stdin_once,
    print_json,
    read_input,
)
from worldinfo.importers import analyse
from worldinfo.importers.schema import validator

IMPORTER = Importer(analyse=analyse, validator=validator)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``test`` sub-command."""
    p = sub.add_parser(
        "test",
        help=help_of("test"),
        description="Run each case of each test file (a directory means every "
        f"*{SUFFIX} file under it, and one with none is an error); print one line per failing "
        "case and a summary. "
        "Exit 0 only when every case passed.",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="test files or folders; - reads one test file from stdin (book paths are then "
        "relative to the current folder)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="also list passing cases")
    add_json_flag(p, "every case (file, case, ok, problem, activated) and the totals")
    p.set_defaults(func=run_tests)


def _expand(files: list[str]) -> list[Path]:
    out: list[Path] = []
    for f in files:
        p = Path(f)
        out.extend(sorted(p.rglob(f"*{SUFFIX}")) if f != STDIO and p.is_dir() else [p])
    return out


def _empty_folders(files: list[str]) -> list[str]:
    """Folders given that hold no test file: a run that tests nothing must not pass."""
    return [f for f in files if f != STDIO and Path(f).is_dir() and not _expand([f])]


def _load(path: Path) -> Suite:
    if str(path) == STDIO:
        text = read_input(STDIO).decode("utf-8", "replace")
        return load(Path.cwd() / STDIN_NAME, importer=IMPORTER, text=text)
    check_readable(str(path))
    return load(path, importer=IMPORTER)


def _problem(path: Path, exc: AuthorTestError | OSError) -> str:
    """The line for a file that cannot be used; an unreadable file as every command says it."""
    if isinstance(exc, OSError):
        return cannot_read(str(path), exc)
    if isinstance(exc, UnreadableFile):
        return f"{exc.file}: {exc.json_path}: {cannot_read(exc.target, exc.error)}"
    return str(exc)


def run_tests(args: argparse.Namespace) -> int:
    """Run the files; exit 1 when a case failed or a file could not be used."""
    check_stdin_once(args.files)
    passed = failed = broken = 0
    records: list[JSONValue] = []
    paths = _expand(args.files)
    for folder in _empty_folders(args.files):
        problem = f"{folder}: no *{SUFFIX} file in this folder"
        records.append({"file": folder, "case": None, "ok": False, "problem": problem})
        if not args.json:
            print(f"ERROR {problem}")
        broken += 1
    for i, path in enumerate(paths, 1):
        if len(paths) > 10:
            print(f"[{i}/{len(paths)}] {path}", file=sys.stderr)
        try:
            suite = _load(path)
        except (AuthorTestError, OSError) as exc:
            problem = _problem(path, exc)
            records.append({"file": str(path), "case": None, "ok": False, "problem": problem})
            if not args.json:
                print(f"ERROR {problem}")
            broken += 1
            continue
        results = run(suite)
        records += [
            {
                "file": str(suite.path),
                "case": r.case.name,
                "ok": r.ok,
                "problem": None if r.ok else r.describe(),
                "activated": list(r.activated),
            }
            for r in results
        ]
        if not args.json:
            for line in case_lines(suite, results):
                print(f"FAIL {line}")
            if args.verbose:
                for r in results:
                    if r.ok:
                        print(f"ok   {suite.path}::{r.case.name}")
        passed += sum(1 for r in results if r.ok)
        failed += sum(1 for r in results if not r.ok)
    if args.json:
        print_json({"cases": records, "passed": passed, "failed": failed, "broken_files": broken})
    else:
        tail = f", {broken} file(s) with errors" if broken else ""
        print(f"{passed} passed, {failed} failed{tail}")
    return 0 if failed == 0 and broken == 0 else 1
