"""The text report of ``worldinfo replay``: per-entry table, never/always fired, turns."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from worldinfo.replay import CUT_KINDS, HOWS, EntryStats, ReplayStats, TurnRecord

MAX_TURN_ROWS = 40
"""Turn tables longer than this are summarised unless every turn is asked for."""


def render_text(stats: ReplayStats, *, every_turn: bool = False) -> str:
    """The replay as a readable report.

    Args:
        stats: the replay's figures.
        every_turn: list every turn even in long replays.

    Returns:
        The text, ending with a newline.
    """
    n = len(stats.turns)
    chats = ", ".join(stats.chats) or "no chat"
    budget = stats.turns[0].budget if stats.turns else 0
    lines = [
        (
            f"Replayed {n} turn(s) of {len(stats.chats)} chat(s) ({chats}) against "
            f"{len(stats.entries)} entries; budget {budget} tokens."
        ),
        "",
    ]
    ranked = sorted(stats.entries, key=lambda s: (-s.fired, -s.tokens))
    lines += _table(
        ("entry", "fired", "share", "how", "tokens", "per firing", "cut"),
        [_entry_row(s, n) for s in ranked],
    )
    lines.append("")
    lines.append(_names("Never fired", stats.never_fired, n))
    lines.append(_names("Always fired", stats.always_fired, n))
    lines.append("")
    lines += _turns(stats.turns, every_turn=every_turn)
    errors = [t for t in stats.turns if t.error]
    for t in errors:
        lines.append(f"turn {t.index} ({t.chat} message {t.message}): error: {t.error}")
    return "\n".join(lines) + "\n"


def _label(s: EntryStats) -> str:
    title = " ".join(s.info.title.split())
    if len(title) > 28:
        title = title[:27] + "…"
    return f"{s.info.world}#{s.info.uid}" + (f" {title}" if title else "")


def _counts(counts: Mapping[str, int], order: Sequence[str]) -> str:
    return ", ".join(f"{k} {counts[k]}" for k in order if counts.get(k)) or "-"


def _entry_row(s: EntryStats, turns: int) -> tuple[str, ...]:
    how = _counts(s.how, HOWS)
    if s.sources:
        top = sorted(s.sources.items(), key=lambda kv: (-kv[1], kv[0]))[:2]
        how += " (from " + ", ".join(f"{k} x{v}" for k, v in top) + ")"
    share = f"{100 * s.fired / turns:.0f}%" if turns else "-"
    disabled = "" if s.info.enabled else " (disabled)"
    return (
        _label(s) + disabled,
        str(s.fired),
        share,
        how,
        str(s.tokens),
        f"{s.per_firing:.1f}" if s.fired else "-",
        _counts(s.cuts, CUT_KINDS),
    )


def _names(what: str, entries: Sequence[EntryStats], turns: int) -> str:
    if not entries:
        return f"{what}: none"
    shown = ", ".join(_label(s) for s in entries[:12])
    more = f" and {len(entries) - 12} more" if len(entries) > 12 else ""
    return f"{what} in {turns} turn(s) ({len(entries)}): {shown}{more}"


def _turns(turns: Sequence[TurnRecord], *, every_turn: bool) -> list[str]:
    if not turns:
        return ["No turns: the chat has no generated message."]
    over = [t for t in turns if t.overflowed]
    used = [t.tokens for t in turns]
    lines = [
        (
            f"Tokens per turn: min {min(used)}, median {statistics.median(used):g}, "
            f"max {max(used)} of a {turns[0].budget}-token budget; "
            f"the budget overflowed in {len(over)} of {len(turns)} turn(s)."
        )
    ]
    if len(turns) > MAX_TURN_ROWS and not every_turn:
        if over:
            shown = ", ".join(str(t.index) for t in over[:20])
            more = f" and {len(over) - 20} more" if len(over) > 20 else ""
            lines.append(f"Overflowed in turns {shown}{more}.")
        lines.append("(--turns lists every turn)")
        return lines
    rows = [
        (
            str(t.index),
            t.chat,
            str(t.message),
            t.type,
            str(len(t.fired)),
            f"{t.tokens}/{t.budget}",
            "overflow" if t.overflowed else "",
        )
        for t in turns
    ]
    return lines + _table(("turn", "chat", "message", "type", "fired", "tokens", ""), rows)


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        for r in [header, *rows]
    ]
