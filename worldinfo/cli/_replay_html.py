"""``explain --html``: one traced scan drawn with the replay report (a one-turn replay)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from worldinfo.cli._atomic import OutputError, write_text_atomic
from worldinfo.engine.budget import compute_budget
from worldinfo.replay import catalog, collect, read_turn
from worldinfo.replay.html import render_html
from worldinfo.result import ScanResult
from worldinfo.session import Session


def write_scan_report(
    path: str, session: Session, result: ScanResult, *, type: str, books: Sequence[str]
) -> str:
    """Write the HTML report of one traced scan; return an error message, or ``""``.

    Args:
        path: the output file (written atomically; a non-regular file is refused).
        session: the session the scan ran in.
        result: the scan, made with ``trace=True``.
        type: its generation type.
        books: the book files named on the command line (for the title).
    """
    turn = read_turn(
        result,
        index=0,
        chat="(the chat)",
        message=len(session.chat),
        type=type,
        budget=compute_budget(session.settings, session.max_context),
        settings=session.settings,
        count_tokens=session.count_tokens,
        substitute=session.macros,
    )
    stats = collect([turn], catalog(session.books, session.selection_names()))
    title = "worldinfo explain: " + ", ".join(Path(b).name for b in books)
    try:
        write_text_atomic(path, render_html(stats, title=title, turn=0))
    except OutputError as exc:
        return str(exc)
    return ""
