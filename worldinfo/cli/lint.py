"""``worldinfo lint FILE...``: static checks of lorebooks, one finding per line (or JSON)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from worldinfo._record import record
from worldinfo.cli._commands import help_of
from worldinfo.cli._conventions import (
    add_json_flag,
    check_stdin_once,
    input_source,
    print_json,
    read_failure,
)
from worldinfo.cli._settings import add_switch, defaults_help, flag_type, int_range
from worldinfo.lint import SEVERITIES, Finding, LintOptions, count_by_code, lint
from worldinfo.types import Book

_SWITCHES = (
    ("recursive", "scan activated entries' content for more keys"),
    ("case_sensitive", "match keys case-sensitively"),
    ("match_whole_words", "match keys as whole words"),
    ("include_names", "match keys against messages with their senders' names"),
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``lint`` sub-command."""
    p = sub.add_parser(
        "lint",
        help=help_of("lint"),
        description="Check books, cards or any importable lorebook file. The files are "
        "linted together, as books bound to one chat. Exit 1 when an error is found.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="files to lint; - reads stdin")
    add_json_flag(p, "the findings (file, code, severity, book, uid, json_path, message)")
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="deprecated: use --json"
    )
    p.add_argument(
        "--min-severity",
        choices=SEVERITIES,
        default="info",
        help="hide findings below this severity (default: show all)",
    )
    p.add_argument(
        "--each",
        action="store_true",
        help="lint every file on its own instead of as books bound together",
    )
    p.add_argument(
        "--max-context", type=int_range(0), default=8192, metavar="N", help="context size in tokens"
    )
    p.add_argument(
        "--budget",
        type=flag_type("budget"),
        default=None,
        metavar="N",
        help=f"budget in %% of --max-context {defaults_help('budget')}",
    )
    p.add_argument(
        "--budget-cap",
        type=flag_type("budget_cap"),
        default=None,
        metavar="N",
        help=f"budget cap in tokens {defaults_help('budget_cap')}",
    )
    p.add_argument(
        "--settings",
        metavar="JSON",
        help="World Info settings: our names or SillyTavern's settings.json; - reads stdin "
        "(default: SillyTavern's defaults)",
    )
    for name, what in _SWITCHES:
        add_switch(p, name, what=what)
    p.add_argument(
        "--chat",
        nargs="+",
        action="extend",
        metavar="CHAT",
        help="also replay these chats and report what the entries did (never fired, ...)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed for probability rolls (--chat) (default: not set, a random seed)",
    )
    p.set_defaults(func=run)


@record
class _Loaded:
    files: list[tuple[str, list[Book]]]
    unreadable: list[tuple[str, Finding]]


def _load(files: Sequence[str]) -> _Loaded:
    from worldinfo import importers

    read: list[tuple[str, list[Book]]] = []
    unreadable: list[tuple[str, Finding]] = []
    progress = len(files) > 10
    for i, f in enumerate(files, 1):
        if progress:
            print(f"[{i}/{len(files)}] {f}", file=sys.stderr)
        try:
            src, name = input_source(f)
        except OSError as exc:
            message = read_failure(exc)
            finding = Finding(code="WI000", severity="error", json_path="$", message=message)
            unreadable.append((f, finding))
            continue
        result, _label, fmt, problems = importers.analyse(src, name=name)
        if result is None:
            for problem in problems:
                finding = Finding(
                    code="WI000",
                    severity="error",
                    json_path=problem.json_path,
                    message=f"cannot import as {fmt}: {problem.message}",
                )
                unreadable.append((f, finding))
            continue
        read.append((f, list(result.books)))
    return _Loaded(files=read, unreadable=unreadable)


def _lint_all(loaded: _Loaded, options: LintOptions, *, each: bool) -> list[tuple[str, Finding]]:
    out = list(loaded.unreadable)
    if each:
        for f, books in loaded.files:
            out += [(f, x) for x in lint(books, options)]
        return out
    owner: dict[str, str] = {}
    for f, books in loaded.files:
        for b in books:
            owner.setdefault(b.name, f)
    books = [b for _, bs in loaded.files for b in bs]
    return out + [(owner.get(x.book, ""), x) for x in lint(books, options)]


def _options(args: argparse.Namespace) -> LintOptions:
    from worldinfo.cli._scan_options import settings_from
    from worldinfo.cli._settings import read_settings_file

    from_file = read_settings_file(args.settings) if args.settings else {}
    settings = settings_from(args, from_file=from_file)
    return LintOptions(
        settings=settings,
        max_context=args.max_context,
        recursion_known=args.recursive is not None or "recursive" in from_file,
    )


def _evidence(
    loaded: _Loaded, args: argparse.Namespace, options: LintOptions
) -> list[tuple[str, Finding]]:
    """Findings from replaying ``args.chat`` against the readable files.

    Raises:
        InputError: a chat cannot be read.
    """
    from worldinfo.cli.replay import replay_paths
    from worldinfo.lint.evidence import check_evidence

    files = [f for f, _ in loaded.files]
    stats = replay_paths(files, args.chat, args, settings=options.settings)
    owner: dict[str, str] = {}
    for f, books in loaded.files:
        for b in books:
            owner.setdefault(b.name, f)
    books = [b for _, bs in loaded.files for b in bs]
    return [(owner.get(x.book, ""), x) for x in check_evidence(books, stats)]


def run(args: argparse.Namespace) -> int:
    """Lint the files; print the findings; exit 1 when an error is found."""
    check_stdin_once([*args.files, args.settings])
    loaded = _load(args.files)
    options = _options(args)
    located = _lint_all(loaded, options, each=args.each)
    if args.chat:
        from worldinfo.cli._inputs import InputError

        try:
            located += _evidence(loaded, args, options)
        except InputError as exc:  # as scan and replay: one line, exit 1
            print(f"worldinfo lint: {exc}", file=sys.stderr)
            return 1
    findings = [x for _, x in located]
    rank = SEVERITIES.index(args.min_severity)
    shown = [(f, x) for f, x in located if SEVERITIES.index(x.severity) <= rank]
    if args.json or args.format == "json":
        print_json([{"file": f, **x.to_json()} for f, x in shown])
    else:
        for f, x in shown:
            print(f"{f}: {x.json_path}: {x.code} {x.severity}: {x.message}")
    counts = {s: sum(1 for x in findings if x.severity == s) for s in SEVERITIES}
    summary = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items())
    books = [b for _, bs in loaded.files for b in bs]
    entries = sum(len(b.entries or ()) for b in books)
    by_code = ", ".join(f"{c} x{n}" for c, n in count_by_code(findings).items())
    tail = f" ({by_code})" if by_code else ""
    print(f"{len(books)} book(s), {entries} entries: {summary}{tail}", file=sys.stderr)
    return 1 if counts["error"] else 0
