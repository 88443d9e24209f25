"""What ``worldinfo explain`` and ``POST /explain`` show: a traced scan as a table and as JSON.

``render_trace`` renders, per scan loop, a table of the entries the loop looked at (outcome,
reason, detail: the key and where it was found, the roll, the token counts), then the final
verdict per entry; ``trace_json`` is the trace itself with the activated entries. Both front
ends (the CLI and the server) use them, so they live below both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo.result import ScanResult
from worldinfo.trace import TraceEvent
from worldinfo.types import Book

_STATES = {
    "INITIAL": "initial scan",
    "RECURSION": "recursion",
    "MIN_ACTIVATIONS": "widened for min activations",
}

REASONS: Mapping[str, str] = {
    "key": "a key matched",
    "constant": "constant",
    "sticky": "sticky (still active)",
    "decorator": "@@activate",
    "forced": "forced by an activation source",
    "disabled": "disabled",
    "trigger": "not for this generation type",
    "character_filter": "character filter",
    "tag_filter": "tag filter",
    "delay": "delay: too early in the chat",
    "cooldown": "cooling down",
    "delay_until_recursion": "waits for a recursion pass",
    "exclude_recursion": "excluded from recursion",
    "dont_activate": "@@dont_activate",
    "no_keys": "no keys",
    "no_primary_match": "no key matched",
    "secondary_logic": "secondary keys failed",
    "group_lost": "lost its group's draw",
    "group_already_active": "group already has a winner",
    "group_timed": "group member sticky/cooldown",
    "group_score": "lower group score",
    "group_quirk_removed": "removed by the group quirk (Q14)",
    "probability": "probability roll failed",
    "budget": "over the budget",
    "budget_skipped": "budget already overflowed",
    "regex_timeout": "regex key timed out",
}
"""A few words for each trace reason code."""


def trace_json(result: ScanResult) -> dict[str, JSONValue]:
    """The trace (loops of events, verdicts) with the activated entries and the loop count."""
    out: dict[str, JSONValue] = {
        "activated": [{"world": w, "uid": u} for w, u in result.activated_keys],
        "scan_loops": result.scan_loops,
    }
    if result.error is not None:
        out["error"] = result.error
    if result.trace is not None:
        out.update(result.trace.to_json())
    canon = _js.canonical(out)
    assert isinstance(canon, dict)
    return canon


def render_trace(
    result: ScanResult,
    *,
    books: Mapping[str, Book] | None = None,
    count_tokens: Callable[[str], int] = _js.st_token_estimate,
) -> str:
    """A readable table per scan loop, then the verdicts.

    Args:
        result: a scan result made with ``trace=True``.
        books: the books, for entry titles (``comment``) of entries that did not activate.
        count_tokens: the token counter, for the size of activated contents.

    Returns:
        The text, ending with a newline.
    """
    if result.error is not None:
        return f"SillyTavern would stop here with an error: {result.error}\n"
    if result.trace is None:
        return "no trace: scan with trace=True\n"
    titles = _titles(books or {})
    tokens = {}
    for e in result.activated:
        key = f"{_js.to_string(e.get('world'))}.{_js.to_string(e.get('uid'))}"
        titles.setdefault(key, _js.to_string(e.get("comment") or ""))
        tokens[key] = count_tokens(_js.to_string(e.get("content") or ""))
    lines: list[str] = []
    for events in result.trace.loops():
        first = events[0]
        lines.append(f"Loop {first.loop} ({_STATES.get(first.state, first.state.lower())})")
        lines += _table([_row(e, titles, tokens=tokens) for e in events])
        lines.append("")
    verdicts = result.trace.verdicts
    n = sum(1 for v in verdicts.values() if v.outcome == "activated")
    lines.append(f"Verdicts: {n} of {len(verdicts)} entries activated")
    rows = [_row(v, titles, tokens=tokens, loop=True) for v in verdicts.values()]
    lines += _table(sorted(rows, key=lambda r: r[1] != "activated"))
    if result.activated:
        total = count_tokens(
            "".join(_js.to_string(e.get("content")) + "\n" for e in result.activated)
        )
        lines.append(f"Activated content: about {_tokens(total)}")
    lines.append(f"The scan ran {result.scan_loops} loop(s).")
    for w in result.warnings:
        lines.append(f"warning: {w}")
    return "\n".join(lines) + "\n"


def _titles(books: Mapping[str, Book]) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, book in books.items():
        for e in book.entries or ():
            out.setdefault(f"{name}.{_js.to_string(e.uid)}", e.comment)
    return out


def _row(
    e: TraceEvent, titles: Mapping[str, str], *, tokens: Mapping[str, int], loop: bool = False
) -> tuple[str, str, str, str]:
    key = f"{_js.to_string(e.world)}.{_js.to_string(e.uid)}"
    title = titles.get(key, "")
    entry = f"{_js.to_string(e.world)}#{_js.to_string(e.uid)}" + (
        f" {_clip(title, 28)}" if title else ""
    )
    reason = f"{e.reason}: {REASONS[e.reason]}" if e.reason in REASONS else e.reason
    details = _detail(e.detail)
    if e.outcome == "activated" and key in tokens:
        details.append(_tokens(tokens[key]))
    if loop:
        details.append(f"loop {e.loop}")
    return (entry, e.outcome, reason, ", ".join(details))


def _tokens(n: int) -> str:
    return f"{n} token" if n == 1 else f"{n} tokens"


def _detail(detail: Mapping[str, JSONValue]) -> list[str]:
    out = []
    rest = dict(detail)
    if "key" in rest:
        key = rest.pop("key")
        where = rest.pop("found_in", "the scan text")
        out.append(f"key {_js.to_string(key)!r} in {_js.to_string(where)}")
    if "roll" in rest:
        out.append(f"roll {_js.to_number(rest.pop('roll')):.2f}")
    if "tokens" in rest:
        used, budget = rest.pop("tokens"), rest.pop("budget", "?")
        out.append(f"{_js.to_string(used)} tokens >= budget {_js.to_string(budget)}")
    out += [f"{k}={_js.to_string(v)}" for k, v in rest.items()]
    return out


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _table(rows: list[tuple[str, str, str, str]]) -> list[str]:
    header = ("entry", "outcome", "reason", "detail")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    out = []
    for r in [header, *rows]:
        cells = [r[i].ljust(widths[i]) for i in range(3)]
        out.append(("  " + "  ".join(cells) + "  " + r[3]).rstrip())
    return out
