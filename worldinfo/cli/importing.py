"""``worldinfo import`` and ``worldinfo validate``: lorebook files in, books / problems out."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo.cli._commands import help_of
from worldinfo.cli._conventions import (
    STDIO,
    UsageError,
    add_json_flag,
    cannot_read,
    check_stdin_once,
    input_source,
    print_json,
    read_failure,
    read_input,
    write_output,
)
from worldinfo.cli._scan_options import add_limit_option, limits_from
from worldinfo.types import Book

if TYPE_CHECKING:
    from worldinfo.importers import Limits


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``import`` and ``validate`` sub-commands."""
    p = sub.add_parser(
        "import",
        help=help_of("import"),
        description="Read FILE in any supported format and write it as a SillyTavern world "
        "(default) or as a V2/V3 card. A .png OUT writes a PNG card.",
    )
    p.add_argument("file", metavar="FILE", help="the file to convert; - reads stdin")
    p.add_argument(
        "-o", "--output", metavar="OUT", help="output file; - is stdout (default: stdout)"
    )
    p.add_argument(
        "--to",
        choices=("st-world", "card-v2", "card-v3"),
        default="st-world",
        help="output format: a SillyTavern world file or a V2/V3 character card",
    )
    p.add_argument(
        "--untrusted",
        action="store_true",
        help="imported entries are untrusted: no constant, @@activate, sticky, ignoreBudget, "
        "system role at depth 0, regex or catch-all keys (worldinfo.trust.TrustPolicy)",
    )
    p.add_argument(
        "--st-exact",
        action="store_true",
        help="card export: write missing fields with SillyTavern's exporter's values, not "
        "its importer's (default: off)",
    )
    add_limit_option(p)
    p.set_defaults(func=run_import)
    v = sub.add_parser(
        "validate",
        help=help_of("validate"),
        description="Read each FILE as import would (any supported format) and list every "
        "problem with its JSON path. Exit 1 when a file has problems.",
    )
    v.add_argument("files", nargs="+", metavar="FILE", help="files to check; - reads stdin")
    v.add_argument("-q", "--quiet", action="store_true", help="only print problems")
    add_limit_option(v)
    add_json_flag(v, "one record per file (file, format, ok, books, entries, disabled, problems)")
    v.set_defaults(func=run_validate)


def _dump(value: JSONValue) -> bytes:
    try:
        return (json.dumps(value, ensure_ascii=False, indent=4) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: keep them as \u escapes
        return (json.dumps(value, ensure_ascii=True, indent=4) + "\n").encode("ascii")


def _print_problems(err: object) -> None:
    from worldinfo.importers import LorebookImportError

    assert isinstance(err, LorebookImportError)
    print(f"worldinfo import: {err.file}: cannot import as {err.format}:", file=sys.stderr)
    for problem in err.problems:
        print(f"  {problem.json_path}: {problem.message}", file=sys.stderr)


def _chat_error(src: str | bytes, path: str, *, limits: Limits) -> Exception | None:
    """``NotABook`` when a file the importers refused is a JSON list of messages (what
    ``scan --chat`` reads), else None."""
    from worldinfo._js import parse_json
    from worldinfo.cli._inputs import NotABook, is_message_list

    try:
        raw = src if isinstance(src, bytes) else read_input(path, limit=limits.max_file_bytes)
        data = parse_json(raw, bounds=limits.json_bounds)
    except (OSError, ValueError, RecursionError, UsageError):
        return None
    if not is_message_list(data):
        return None
    assert isinstance(data, list)
    return NotABook(path, what=f"a JSON list of {len(data)} messages")  # scan --chat reads it


def _disabled(books: Sequence[Book]) -> tuple[int, int]:
    """``(disabled, total)`` entries over ``books``."""
    entries = [e for b in books for e in b.entries or ()]
    return sum(1 for e in entries if _js.truthy(e.data.get("disable", False))), len(entries)


def run_import(args: argparse.Namespace) -> int:
    """Convert one file; exit 1 (with the problem list) when it cannot be imported."""
    from worldinfo import importers
    from worldinfo.importers.export import card_json, png_card_bytes, world_json
    from worldinfo.importers.writing import OutputRefused

    check_stdin_once([args.file])
    try:
        src, name = input_source(args.file)
    except OSError as exc:
        print(f"worldinfo import: {cannot_read(args.file, exc)}", file=sys.stderr)
        return 1
    try:
        imp = importers.load(src, name=name, trust=not args.untrusted, limits=limits_from(args))
    except importers.LorebookImportError as err:
        chat = _chat_error(src, args.file, limits=limits_from(args))
        if chat is not None:
            print(f"worldinfo import: {chat}", file=sys.stderr)
            return 1
        _print_problems(err)
        return 1
    book = imp.book
    out: str | None = args.output
    if imp.format in ("st-chat", "tavernai-chat"):
        from worldinfo.cli._inputs import NotABook

        what = "SillyTavern .jsonl" if imp.format == "st-chat" else "TavernAI, a list of strings"
        print(f"worldinfo import: {NotABook(args.file, what=what)}", file=sys.stderr)
        return 1
    if args.to == "st-world":
        if book is None:
            print(
                f"worldinfo import: {args.file}: {imp.format} holds no lorebook to export "
                "(import converts books and cards)",
                file=sys.stderr,
            )
            return 1
        data = _dump(world_json(book))
    else:
        card = card_json(
            book,
            card=imp.card,
            character=imp.character,
            v3=args.to == "card-v3",
            st_exact=args.st_exact,
        )
        if out is not None and out != STDIO and Path(out).suffix.lower() == ".png":
            base = (
                (src if isinstance(src, bytes) else read_input(args.file))
                if imp.carrier == "png"
                else None
            )
            data = png_card_bytes(card, base=base)
        else:
            data = _dump(card)
    try:
        write_output(out, data)
    except OutputRefused as exc:
        raise UsageError(str(exc)) from exc
    except OSError as exc:
        print(f"worldinfo import: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    disabled, n = _disabled(imp.books)
    if out is not None and out != STDIO:
        print(f"{args.file} ({imp.format}, {n} entries) -> {out}", file=sys.stderr)
    if disabled:
        print(
            f"{args.file}: {disabled} of {n} entries come in disabled (as SillyTavern imports "
            "them); enable them in the book to use them",
            file=sys.stderr,
        )
    return 0


def _validate_one(f: str, *, limits: Limits) -> dict[str, JSONValue]:
    """One file's ``--json`` record (see README, "CLI conventions")."""
    from worldinfo import importers
    from worldinfo.lint import scan_stoppers

    try:
        src, name = input_source(f)
    except OSError as exc:
        return _unreadable(f, exc)
    result, label, fmt, problems = importers.analyse(src, name=name, limits=limits)
    out: list[JSONValue] = [{"json_path": p.json_path, "message": p.message} for p in problems]
    books: list[Book] = list(result.books) if result is not None else []
    for x in scan_stoppers(books):
        where = {"book": x.book, "uid": x.uid}
        out.append({"json_path": x.json_path, "message": x.message, **where})
    disabled, n = _disabled(books)
    return {
        "file": label,
        "format": fmt,
        "ok": result is not None and not out,
        "books": len(books),
        "entries": n,
        "disabled": disabled,
        "problems": out,
        "warnings": [
            f"{w.json_path}: {w.message}" for w in (result.warnings if result is not None else ())
        ],
    }


def _unreadable(f: str, exc: OSError) -> dict[str, JSONValue]:
    """The ``--json`` record of a file that cannot be read: no format, one problem."""
    problem = {"json_path": "$", "message": read_failure(exc)}
    record: dict[str, JSONValue] = {"file": f, "format": None, "ok": False, "books": 0}
    return {**record, "entries": 0, "disabled": 0, "problems": [problem], "warnings": []}


def _validate_line(rec: dict[str, JSONValue]) -> list[str]:
    if rec["format"] is None:  # not read at all
        return [
            f"FAIL {rec['file']}: {p['message']}" for p in rec["problems"] if isinstance(p, dict)
        ]
    if not rec["ok"]:
        lines = [f"FAIL {rec['file']} ({rec['format']})"]
        for p in rec["problems"]:
            assert isinstance(p, dict)
            entry = f" (book {p['book']!r}, entry uid {p['uid']})" if "book" in p else ""
            lines.append(f"  {p['json_path']}: {p['message']}{entry}")
        return lines
    off = f", {rec['disabled']} disabled" if rec["disabled"] else ""
    what = f"{rec['books']} book(s), {rec['entries']} entries{off}"
    return [f"ok   {rec['file']} ({rec['format']}, {what})"]


def run_validate(args: argparse.Namespace) -> int:
    """Check each file; print its problems; exit 1 when any file has problems."""
    files: list[str] = args.files
    limits = limits_from(args)
    check_stdin_once(files)
    records: list[JSONValue] = []
    bad = 0
    show_progress = len(files) > 10 and sys.stderr.isatty() or len(files) > 50
    for i, f in enumerate(files, 1):
        if show_progress:
            print(f"[{i}/{len(files)}] {f}", file=sys.stderr)
        rec = _validate_one(f, limits=limits)
        bad += not rec["ok"]
        records.append(rec)
        if not args.json and (not rec["ok"] or not args.quiet):
            print("\n".join(_validate_line(rec)))
        if not args.json:
            for warning in rec["warnings"]:  # not a failure: the file imports
                where = "  " if not args.quiet else f"{rec['file']}: "
                print(f"{where}warning: {warning}")
            sys.stdout.flush()
    if args.json:
        print_json({"files": records, "ok": len(files) - bad, "with_problems": bad})
    print(f"{len(files) - bad} ok, {bad} with problems", file=sys.stderr)
    return 1 if bad else 0
