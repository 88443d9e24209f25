"""``worldinfo import`` and ``worldinfo validate``: lorebook files in, books / problems out."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from worldinfo._js import JSONValue
from worldinfo.cli._inputs import add_limit_option, limits_from


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``import`` and ``validate`` sub-commands."""
    p = sub.add_parser(
        "import",
        help="convert a lorebook, card or chat file (any supported format)",
        description="Read FILE in any supported format and write it as a SillyTavern world "
        "(default) or as a V2/V3 card. A .png OUT writes a PNG card.",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("-o", "--output", metavar="OUT", help="output file (default: stdout)")
    p.add_argument("--to", choices=("st-world", "card-v2", "card-v3"), default="st-world")
    p.add_argument(
        "--untrusted",
        action="store_true",
        help="imported entries are untrusted: no constant, @@activate, sticky, ignoreBudget, "
        "system role at depth 0, regex or catch-all keys (worldinfo.trust.TrustPolicy)",
    )
    p.add_argument(
        "--st-exact", action="store_true", help="card export with SillyTavern's exact defaults"
    )
    add_limit_option(p)
    p.set_defaults(func=run_import)
    v = sub.add_parser("validate", help="check files; exit 1 and list problems if any is bad")
    v.add_argument("files", nargs="+", metavar="FILE")
    v.add_argument("-q", "--quiet", action="store_true", help="only print problems")
    add_limit_option(v)
    v.set_defaults(func=run_validate)


def _dump(value: JSONValue) -> bytes:
    try:
        return (json.dumps(value, ensure_ascii=False, indent=4) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: keep them as \u escapes
        return (json.dumps(value, ensure_ascii=True, indent=4) + "\n").encode("ascii")


def _print_problems(err: object) -> None:
    from worldinfo.importers import LorebookImportError

    assert isinstance(err, LorebookImportError)
    print(f"{err.file}: cannot import as {err.format}:", file=sys.stderr)
    for problem in err.problems:
        print(f"  {problem.json_path}: {problem.message}", file=sys.stderr)


def run_import(args: argparse.Namespace) -> int:
    """Convert one file; exit 1 (with the problem list) when it cannot be imported."""
    from worldinfo import importers
    from worldinfo.importers.export import card_json, png_card_bytes, world_json, write_atomic

    try:
        imp = importers.load(args.file, trust=not args.untrusted, limits=limits_from(args))
    except importers.LorebookImportError as err:
        _print_problems(err)
        return 1
    book = imp.book
    out = Path(args.output) if args.output else None
    if args.to == "st-world":
        if book is None:
            print(f"{args.file}: {imp.format} has no lorebook to export", file=sys.stderr)
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
        if out is not None and out.suffix.lower() == ".png":
            base = Path(args.file).read_bytes() if imp.carrier == "png" else None
            data = png_card_bytes(card, base=base)
        else:
            data = _dump(card)
    if out is None:
        sys.stdout.buffer.write(data)
    else:
        write_atomic(out, data)
        n = len(book.entries or ()) if book else 0
        print(f"{args.file} ({imp.format}, {n} entries) -> {out}", file=sys.stderr)
    return 0


def run_validate(args: argparse.Namespace) -> int:
    """Check each file; print its problems; exit 1 when any file has problems."""
    from worldinfo import importers

    files: list[str] = args.files
    limits = limits_from(args)
    bad = 0
    show_progress = len(files) > 10 and sys.stderr.isatty() or len(files) > 50
    for i, f in enumerate(files, 1):
        if show_progress:
            print(f"[{i}/{len(files)}] {f}", file=sys.stderr)
        result, label, fmt, problems = importers.analyse(f, limits=limits)
        if result is None:
            bad += 1
            print(f"FAIL {label} ({fmt})")
            for problem in problems:
                print(f"  {problem.json_path}: {problem.message}")
            continue
        if not args.quiet:
            entries = sum(len(b.entries or ()) for b in result.books)
            print(f"ok   {label} ({fmt}, {len(result.books)} book(s), {entries} entries)")
        for warning in result.warnings:  # not a failure: the file imports
            where = "  " if not args.quiet else f"{label}: "
            print(f"{where}warning: {warning.json_path}: {warning.message}")
        sys.stdout.flush()
    print(f"{len(files) - bad} ok, {bad} with problems", file=sys.stderr)
    return 1 if bad else 0
