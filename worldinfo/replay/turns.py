"""One replayed turn: what each entry did in one traced scan, read from the trace.

A ``TurnRecord`` keeps, for one generation, the entries that fired (how, in which loop,
their tokens, and for recursion the entries whose content held the key), the entries that
were cut (budget, group, probability, cooldown, delay) and the tokens used against the
budget. It is built from a ``ScanResult`` made with ``trace=True``; nothing is re-decided.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from worldinfo import _js
from worldinfo._record import record
from worldinfo.engine.buffer import MATCHER, ScanBuffer
from worldinfo.engine.timed_effects import entry_key
from worldinfo.result import ScanResult
from worldinfo.types import Settings

HOWS = ("key", "recursion", "constant", "sticky", "decorator", "forced")
"""How an entry fired: a key in the chat or prompts, a key in recursed content, or the
trace's other activation reasons."""

CUTS: Mapping[str, str] = {
    "budget": "budget",
    "budget_skipped": "budget",
    "group_lost": "group",
    "group_already_active": "group",
    "group_timed": "group",
    "group_score": "group",
    "group_quirk_removed": "group",
    "probability": "probability",
    "cooldown": "cooldown",
    "delay": "delay",
}
"""Trace skip reasons that count as a cut, by the cut they are reported as."""

CUT_KINDS = ("budget", "group", "probability", "cooldown", "delay")


@record
class Firing:
    """One entry that fired in a turn.

    Args:
        key: the entry key (``world.uid``).
        how: one of ``HOWS``.
        loop: the scan loop it activated in (1 = the first).
        tokens: the tokens of its (substituted) content.
        sources: for ``recursion``, the keys of earlier entries whose content holds the key.
        matched: for ``key`` and ``recursion``, the key that matched.
    """

    key: str
    how: str
    loop: int
    tokens: int
    sources: tuple[str, ...] = ()
    matched: str = ""


@record
class TurnRecord:
    """What one generation's scan did.

    Args:
        index: the turn's number in the replay (0-based, across chats).
        chat: the chat's label (its file name).
        message: the index in the chat of the message the scan came before.
        type: the generation type.
        fired: the entries that fired, in activation order.
        cut: entry key -> cut kind (a key of ``CUT_KINDS``).
        tokens: tokens of all activated content together (as ``explain`` counts it).
        budget: the token budget of the scan.
        overflowed: an entry was cut by the budget.
        loops: how many scan loops ran.
        error: where SillyTavern would have stopped with an error, else ``""``.
    """

    index: int
    chat: str
    message: int
    type: str
    fired: tuple[Firing, ...]
    cut: Mapping[str, str]
    tokens: int
    budget: int
    overflowed: bool
    loops: int
    error: str = ""


def read_turn(
    result: ScanResult,
    *,
    index: int,
    chat: str,
    message: int,
    type: str,
    budget: int,
    settings: Settings,
    count_tokens: Callable[[str], int],
    substitute: Callable[[str], str],
) -> TurnRecord:
    """Read a traced scan result into a ``TurnRecord``.

    Args:
        result: a ``ScanResult`` made with ``trace=True``.
        index: the turn number.
        chat: the chat label.
        message: the message index the scan came before.
        type: the generation type.
        budget: the scan's token budget.
        settings: the settings the scan ran with (for key matching in recursion sources).
        count_tokens: the session's token counter.
        substitute: the session's macro substituter (keys are substituted before matching).

    Returns:
        The record.
    """
    if result.error is not None or result.trace is None:
        return TurnRecord(
            index=index,
            chat=chat,
            message=message,
            type=type,
            fired=(),
            cut={},
            tokens=0,
            budget=budget,
            overflowed=False,
            loops=0,
            error=result.error or "no trace",
        )
    verdicts = result.trace.verdicts
    cut = {k: CUTS[v.reason] for k, v in verdicts.items() if v.reason in CUTS}
    fired: list[Firing] = []
    earlier: list[tuple[int, str, str]] = []
    matcher: ScanBuffer | None = None
    for entry in result.activated:
        key = entry_key(entry)
        content = _js.to_string(entry.get("content", ""))
        verdict = verdicts.get(key)
        loop = verdict.loop if verdict is not None else 1
        how = verdict.reason if verdict is not None and verdict.reason in HOWS else "key"
        detail = verdict.detail if verdict is not None else {}
        matched = _js.to_string(detail.get("key", ""))
        sources: tuple[str, ...] = ()
        if how == "key" and detail.get("found_in") == "recursion text":
            how = "recursion"
            needle = _js.trim(substitute(matched))
            matcher = matcher or ScanBuffer(chat=[], settings=settings)
            sources = tuple(
                k
                for lp, k, text in earlier
                if lp < loop and matcher.match_key(MATCHER + text, needle, entry)
            )
        fired.append(
            Firing(
                key=key,
                how=how,
                loop=loop,
                tokens=count_tokens(content),
                sources=sources,
                matched=matched,
            )
        )
        if not _js.truthy(entry.get("preventRecursion")):
            earlier.append((loop, key, content))
    total = count_tokens("".join(_js.to_string(e.get("content")) + "\n" for e in result.activated))
    return TurnRecord(
        index=index,
        chat=chat,
        message=message,
        type=type,
        budget=budget,
        fired=tuple(fired),
        cut=cut,
        tokens=total if result.activated else 0,
        overflowed=any(v.reason == "budget" for v in verdicts.values()),
        loops=result.scan_loops,
    )


def turn_json(turn: TurnRecord) -> dict[str, object]:
    """Plain JSON form of a turn."""
    out: dict[str, object] = {
        "turn": turn.index,
        "chat": turn.chat,
        "message": turn.message,
        "type": turn.type,
        "tokens": turn.tokens,
        "budget": turn.budget,
        "overflowed": turn.overflowed,
        "loops": turn.loops,
        "fired": [_firing_json(f) for f in turn.fired],
        "cut": dict(sorted(turn.cut.items())),
    }
    if turn.error:
        out["error"] = turn.error
    return out


def _firing_json(f: Firing) -> dict[str, object]:
    out: dict[str, object] = {"entry": f.key, "how": f.how, "loop": f.loop, "tokens": f.tokens}
    if f.matched:
        out["matched"] = f.matched
    if f.how == "recursion":
        out["from"] = list(f.sources)
    return out


def keys_of(turns: Sequence[TurnRecord]) -> list[list[str]]:
    """The fired entry keys of each turn, in activation order (for comparisons)."""
    return [[f.key for f in t.fired] for t in turns]
