"""Lint findings from evidence: what the entries did when real chats were replayed.

The static checks say what an entry can do; these say what it did (``worldinfo.replay``):
never fired in N turns, fired in every turn, cut by the budget every time it was due, or
only ever reached through recursion. Each finding carries its counts. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from worldinfo import _js
from worldinfo.lint.model import Finding, Located, locate
from worldinfo.replay.stats import EntryStats, ReplayStats
from worldinfo.types import Book

EVIDENCE_CODES: Mapping[str, tuple[str, str]] = {
    "WI120": ("warning", "never fired in the replayed chats"),
    "WI121": ("info", "fired in every replayed turn"),
    "WI122": ("warning", "always cut by the budget"),
    "WI123": ("info", "only ever reached through recursion"),
}
"""The evidence codes (kept apart from the static ``CODES``): severity and title."""


def check_evidence(books: Sequence[Book], stats: ReplayStats) -> list[Finding]:
    """The evidence findings for the books' entries, in book and entry order.

    Args:
        books: the linted books (for the JSON paths of their entries).
        stats: a replay of chats against those books.

    Returns:
        One finding per entry and code that applies; none when no turn was replayed.
    """
    turns = len(stats.turns)
    if not turns:
        return []
    by_key = {s.info.key: s for s in stats.entries}
    out: list[Finding] = []
    for e in locate(books):
        key = f"{e.book}.{_js.to_string(e.get('uid'))}"
        s = by_key.get(key)
        if s is None or not s.info.enabled:
            continue
        out += _entry(e, s, turns, chats=len(stats.chats))
    return out


def _entry(e: Located, s: EntryStats, turns: int, *, chats: int) -> Iterable[Finding]:
    where = f"{turns} replayed turn(s) of {chats} chat(s)"
    budget = s.cuts.get("budget", 0)
    if s.fired == 0 and budget:
        yield _finding(
            e,
            "WI122",
            f"due in {budget} of {where} and cut by the budget every time: it never reached "
            "the prompt (raise the budget, shorten it, or give it a higher order)",
        )
    elif s.fired == 0:
        cuts = ", ".join(f"{k} {v}" for k, v in sorted(s.cuts.items()))
        extra = f" (cut: {cuts})" if cuts else ""
        yield _finding(e, "WI120", f"never fired in {where}{extra}")
    if s.fired == turns and set(s.how) != {"constant"}:
        how = ", ".join(f"{k} {v}" for k, v in sorted(s.how.items()))
        yield _finding(
            e,
            "WI121",
            f"fired in all {where} ({how}), {s.tokens} tokens in total: its keys may be too "
            "common; if it should always be there, make it constant",
        )
    if s.only_recursion:
        top = sorted(s.sources.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        woken = ", ".join(f"{k} x{v}" for k, v in top) or "recursed text"
        yield _finding(
            e,
            "WI123",
            f"fired in {s.fired} of {where}, every time through recursion (woken by "
            f"{woken}); no chat message ever matched its keys",
        )


def _finding(e: Located, code: str, message: str) -> Finding:
    return Finding(
        code=code,
        severity=EVIDENCE_CODES[code][0],
        json_path=e.path,
        message=message,
        book=e.book,
        uid=e.entry.uid,
    )
