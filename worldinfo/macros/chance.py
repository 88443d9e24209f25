"""``{{roll}}`` with droll's semantics (M7) and ``{{random}}``/``{{pick}}`` (M8)."""

from __future__ import annotations

import math
import re

from worldinfo import _js
from worldinfo._js.seedrandom import seedrandom_first
from worldinfo.macros.run import Pass, Run
from worldinfo.macros.scan import Finder, Groups, LazyPattern, sub, until_brace

_ROLL = LazyPattern(r"\{\{roll[ :]", re.IGNORECASE | re.ASCII)
_FORMULA = LazyPattern(r"([1-9][0-9]*)?d([1-9][0-9]*)([+-][0-9]+)?", re.IGNORECASE | re.ASCII)
_CHOICE = {
    word: LazyPattern(r"\{\{" + word + _js.JS_WS_CLASS + "?::?", re.IGNORECASE)
    for word in ("random", "pick")
}
_ESCAPED_COMMA = "\ue000COMMA\ue000"


def roll(run: Run, formula: str) -> str:
    """One ``{{roll}}``: ``""`` for an invalid formula (or more dice than allowed)."""
    formula = _js.trim(formula)
    if formula.isascii() and formula.isdigit():
        formula = "1d" + formula
    m = _FORMULA().fullmatch(formula)
    if m is None:
        return ""
    count = float(m.group(1)) if m.group(1) else 1.0
    if run.dice_rolled + count > run.settings.max_dice:
        return ""
    run.dice_rolled += int(count)
    sides = float(m.group(2))
    total = 0.0
    for _ in range(int(count)):
        total += 1 + math.floor(run.ctx.math_random() * sides)
    if m.group(3):
        total += float(m.group(3))
    return _js.format_number(_js.number_value(total))


def _roll_pass(run: Run, text: str) -> str:
    return sub(
        text, _ROLL(), until_brace(), lambda _s, g: roll(run, g[0]), limit=run.settings.max_output
    )


def items(listing: str) -> list[str]:
    """The choices of a ``{{random}}``/``{{pick}}`` list (M8.1)."""
    if "::" in listing:
        return listing.split("::")
    protected = listing.replace("\\,", _ESCAPED_COMMA)
    return [_js.trim(x).replace(_ESCAPED_COMMA, ",") for x in protected.split(",")]


def _choice_shape(f: Finder, start: int) -> tuple[int, Groups] | None:
    hit = until_brace()(f, start)
    if hit is None and f.text[start - 2 : start] == "::":
        return until_brace()(f, start - 1)  # the optional second ":" gives way (":" is the list)
    return hit


def _random_pass(run: Run, text: str) -> str:
    def one(_start: int, g: Groups) -> str:
        choices = items(g[0])
        return choices[math.floor(run.ctx.random() * len(choices))]

    return sub(text, _CHOICE["random"](), _choice_shape, one, limit=run.settings.max_output)


def chat_id_hash(run: Run) -> int:
    """``chat_metadata.chat_id_hash``, computed and stored when missing (M8.2, M2.8)."""
    stored = run.chat_id_hash
    if _js.truthy(stored):
        return stored  # type: ignore[no-any-return]
    md = run.ctx.chat_metadata
    main = md.get("main_chat")
    if main is None:
        ctx = run.ctx
        main = (
            ctx.group.chat_id
            if ctx.group is not None
            else ctx.character.chat
            if ctx.character is not None
            else None
        )
    fresh = _js.string_hash(main)
    run.chat_id_hash = fresh
    return fresh


def pick_pass(raw: str) -> Pass:
    """The ``{{pick}}`` pass of an evaluation whose unsubstituted text is ``raw``."""

    def apply(run: Run, text: str) -> str:
        prefix = f"{chat_id_hash(run)}-{_js.string_hash(raw)}-"

        def one(start: int, g: Groups) -> str:
            if run.picks_made >= run.settings.max_picks:
                return ""
            run.picks_made += 1
            offset = _js.utf16_len(text[:start]) if not text.isascii() else start
            seed = _js.string_hash(f"{prefix}{offset}")
            choices = items(g[0])
            return choices[math.floor(seedrandom_first(seed) * len(choices))]

        return sub(text, _CHOICE["pick"](), _choice_shape, one, limit=run.settings.max_output)

    return Pass(source="{{pick", apply=apply, marker="{{pick")


ROLL = Pass(source="{{roll[ :]([^}]+)}}", apply=_roll_pass)
RANDOM = Pass(source="{{random", apply=_random_pass)
