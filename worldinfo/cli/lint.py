"""``worldinfo lint FILE...``: static checks of lorebooks, one finding per line (or JSON)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from worldinfo._js import JSONValue
from worldinfo.lint import SEVERITIES, Finding, LintOptions, count_by_code, lint
from worldinfo.types import Book


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``lint`` sub-command."""
    p = sub.add_parser(
        "lint",
        help="check lorebooks for entries that never fire, always fire or misbehave",
        description="Check books, cards or any importable lorebook file. The files are "
        "linted together, as books bound to one chat. Exit 1 when an error is found.",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--format", choices=("text", "json"), default="text")
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
    p.add_argument("--max-context", type=int, default=8192, help="context size (default 8192)")
    p.add_argument("--budget", type=int, default=None, help="budget in %% (default 25)")
    p.add_argument("--budget-cap", type=int, default=None, help="budget cap in tokens")
    p.add_argument("--settings", metavar="JSON", help="settings file (World Info settings)")
    for name in ("recursive", "case_sensitive", "match_whole_words", "include_names"):
        flag = name.replace("_", "-")
        p.add_argument(f"--{flag}", dest=name, action="store_true", default=None)
        p.add_argument(f"--no-{flag}", dest=name, action="store_false")
    p.add_argument(
        "--chat",
        nargs="+",
        action="extend",
        metavar="CHAT",
        help="also replay these chats and report what the entries did (never fired, ...)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed for probability rolls (--chat)")
    p.set_defaults(func=run)


@dataclass(frozen=True, slots=True, kw_only=True)
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
        result, _label, fmt, problems = importers.analyse(f)
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
    from worldinfo.cli._inputs import InputError, settings_from

    try:
        settings = settings_from(args)
    except InputError as exc:
        raise SystemExit(f"worldinfo lint: {exc}") from None
    if args.include_names is not None:
        settings = replace(settings, include_names=args.include_names)
    return LintOptions(
        settings=settings,
        max_context=args.max_context,
        recursion_known=args.recursive is not None or _file_sets_recursive(args.settings),
    )


def _file_sets_recursive(path: str | None) -> bool:
    if not path:
        return False
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "recursive" in data


def _evidence(
    loaded: _Loaded, args: argparse.Namespace, options: LintOptions
) -> list[tuple[str, Finding]]:
    """Findings from replaying ``args.chat`` against the readable files."""
    from worldinfo.cli._inputs import InputError
    from worldinfo.cli.replay import replay_paths
    from worldinfo.lint.evidence import check_evidence

    files = [f for f, _ in loaded.files]
    try:
        stats = replay_paths(files, args.chat, args, settings=options.settings)
    except InputError as exc:
        raise SystemExit(f"worldinfo lint: {exc}") from None
    owner: dict[str, str] = {}
    for f, books in loaded.files:
        for b in books:
            owner.setdefault(b.name, f)
    books = [b for _, bs in loaded.files for b in bs]
    return [(owner.get(x.book, ""), x) for x in check_evidence(books, stats)]


def run(args: argparse.Namespace) -> int:
    """Lint the files; print the findings; exit 1 when an error is found."""
    loaded = _load(args.files)
    options = _options(args)
    located = _lint_all(loaded, options, each=args.each)
    if args.chat:
        located += _evidence(loaded, args, options)
    findings = [x for _, x in located]
    rank = SEVERITIES.index(args.min_severity)
    shown = [(f, x) for f, x in located if SEVERITIES.index(x.severity) <= rank]
    if args.format == "json":
        out: list[JSONValue] = [{"file": f, **x.to_json()} for f, x in shown]
        print(json.dumps(out, ensure_ascii=False, indent=1))
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
