"""Static checks for lorebooks: what SillyTavern 1.15.0 will do that the author likely did not mean.

``lint(books)`` returns every ``Finding``: a stable code (``WI001`` ...), a severity (``error``:
the entry cannot behave as written, e.g. it never or always fires, or its content is dropped;
``warning``: very likely a mistake; ``info``: worth knowing), the JSON path of the field in
SillyTavern world form (``$.entries.<uid>.key.0``, what ``worldinfo import`` writes) and a
message. Books linted together are treated as bound together (one scan sees them all).
Disabled entries are parked by their author: only the duplicate-uid check applies to them.
The checks follow the spec's quirks (Q4, Q5, Q7, Q8, Q11, Q13, Q22, Q24) and the 1.15 changes
(``triggers``, outlets). Pure: no I/O, no printing.
"""

from __future__ import annotations

from collections.abc import Sequence

from worldinfo.lint import books as _lint_books
from worldinfo.lint import entry as _lint_entry
from worldinfo.lint import fatal as _lint_fatal
from worldinfo.lint import keys as _lint_keys
from worldinfo.lint.model import (
    CODES,
    SEVERITIES,
    Finding,
    LintOptions,
    Located,
    count_by_code,
    is_enabled,
    locate,
)
from worldinfo.types import Book

DEFAULT_OPTIONS = LintOptions()

__all__ = [
    "CODES",
    "SEVERITIES",
    "Finding",
    "LintOptions",
    "Located",
    "count_by_code",
    "is_enabled",
    "lint",
    "locate",
    "scan_stoppers",
]


def lint(books: Sequence[Book], options: LintOptions = DEFAULT_OPTIONS) -> list[Finding]:
    """Run every check over books bound together.

    Args:
        books: the books one scan would see.
        options: settings and context size to judge against.

    Returns:
        Every finding, book by book and entry by entry, then the cross-entry ones.
    """

    located = locate(books)
    findings: list[Finding] = []
    for e in located:
        findings += _lint_fatal.check_entry(e)
        if not is_enabled(e):
            continue
        findings += _lint_keys.check_entry(e, options)
        findings += _lint_entry.check_entry(e, options)
    findings += _lint_books.check_books(located, options)
    return findings


def scan_stoppers(books: Sequence[Book]) -> list[Finding]:
    """Only the findings of values that stop SillyTavern's scan (WI110-WI112).

    Args:
        books: the books to check.

    Returns:
        One finding per offending field, with book, uid and JSON path.
    """
    return [f for e in locate(books) for f in _lint_fatal.check_entry(e)]
