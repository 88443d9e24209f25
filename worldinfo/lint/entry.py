"""Lint checks on one entry's other fields: position and outlet, triggers, probability,
scan depth, budget, decorators (R14, R18, R48, R67; 1.15 triggers and outlets)."""

from __future__ import annotations

import math

from worldinfo import _js
from worldinfo._js import UNDEFINED
from worldinfo.engine import gathering
from worldinfo.lint.model import Finding, LintOptions, Located
from worldinfo.types import GENERATION_TYPES

CCV3_DECORATORS = frozenset(
    {
        "@@depth",
        "@@instruct_depth",
        "@@reverse_depth",
        "@@reverse_instruct_depth",
        "@@role",
        "@@position",
        "@@scan_depth",
        "@@instruct_scan_depth",
        "@@is_greeting",
        "@@is_user_icon",
        "@@activate_only_after",
        "@@activate_only_every",
        "@@keep_activate_after_match",
        "@@dont_activate_after_match",
        "@@additional_keys",
        "@@exclude_keys",
        "@@disable_ui_prompt",
        "@@ignore_on_max_context",
        "@@match_full_word",
        "@@match_partial_word",
        "@@probability",
    }
)
"""Decorators of the Character Card V3 spec (and RisuAI); SillyTavern 1.15.0 ignores them."""


def check_entry(e: Located, options: LintOptions) -> list[Finding]:
    """Every non-key finding of one enabled entry."""
    return [
        *_position(e),
        *_triggers(e),
        *_probability(e),
        *_scan_depth(e),
        *_budget(e, options),
        *_decorators(e),
    ]


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _position(e: Located) -> list[Finding]:
    pos = e.get("position")
    if not (isinstance(pos, (int, float)) and _is_number(pos) and float(pos) in range(8)):
        return [
            e.finding(
                "WI041",
                "position",
                message=f"position {_js.stringify(pos) if pos is not UNDEFINED else '(missing)'} is not "
                "one of the numbers 0-7: the entry activates and uses budget, but its content "
                "is left out of the prompt (Q22)",
            )
        ]
    if pos == 7 and not _js.truthy(e.get("outletName")):
        return [
            e.finding(
                "WI040",
                "outletName",
                message="position 7 (outlet) without an outletName: the entry activates and uses budget, "
                "but its content goes nowhere",
            )
        ]
    if pos == 4 and not _is_number(e.get("depth")):
        depth = e.get("depth")
        what = "missing: it is never injected" if depth is UNDEFINED else "not a number"
        if depth is None:
            what = "null: it is injected at depth 0, in a group of its own"
        return [e.finding("WI042", "depth", message=f"@depth entry whose depth is {what} (Q24)")]
    return []


def _triggers(e: Located) -> list[Finding]:
    triggers = e.get("triggers")
    if isinstance(triggers, list):
        if not triggers:
            return []
        bad = [t for t in triggers if not isinstance(t, str) or t not in GENERATION_TYPES]
        if not bad:
            return []
        hints = [
            f"{t!r} (did you mean {t.lower()!r}?)"
            if isinstance(t, str) and t.lower() in GENERATION_TYPES
            else _js.stringify(t)
            for t in bad
        ]
        whole = (
            "none of them ever matches, so the entry never activates"
            if len(bad) == len(triggers)
            else "those never match"
        )
        return [
            e.finding(
                "WI050",
                "triggers",
                message=f"unknown generation type(s) {', '.join(hints)}; names are compared exactly "
                f"with {', '.join(GENERATION_TYPES)}: {whole}",
            )
        ]
    if triggers is UNDEFINED or triggers is None:
        return []
    return [
        e.finding(
            "WI051",
            "triggers",
            message=f"triggers is {_js.stringify(triggers)}, not a list: SillyTavern ignores it and the "
            "entry fires for every generation type",
        )
    ]


def _probability(e: Located) -> list[Finding]:
    if not _js.truthy(e.get("useProbability")):
        return []
    p = e.get("probability")
    if _js.strict_eq(p, 100):
        return []
    n = _js.to_number(p)
    if math.isnan(n):
        why = "is missing or not a number, so every roll fails"
    elif n <= 0:
        why = f"is {_js.stringify(p)}: the roll passes only when it is exactly 0"
    else:
        return []
    return [
        e.finding(
            "WI060",
            "probability",
            message=f"probability {why}; the entry (practically) never activates",
        )
    ]


def _scan_depth(e: Located) -> list[Finding]:
    sd = e.get("scanDepth")
    if _js.nullish(sd) or _js.truthy(e.get("constant")) or not _js.le(sd, 0):
        return []
    return [
        e.finding(
            "WI024",
            "scanDepth",
            message=f"scanDepth {_js.stringify(sd)}: the entry's scan text is empty, so its keys never "
            "match (Q7)",
        )
    ]


def _budget(e: Located, options: LintOptions) -> list[Finding]:
    if _js.truthy(e.get("ignoreBudget")):
        return []
    content = e.get("content")
    tokens = _js.st_token_estimate(content + "\n") if isinstance(content, str) else 0
    budget = options.budget
    if tokens < budget:
        return []
    return [
        e.finding(
            "WI071",
            "content",
            message=f"the content alone is about {tokens} tokens (SillyTavern's character estimate) "
            f"and the budget is {budget} "
            f"({_js.stringify(options.settings.budget)}% of {options.max_context}): it can "
            "never be activated (raise the budget or set ignoreBudget)",
        )
    ]


def _decorators(e: Located) -> list[Finding]:
    content = e.get("content")
    if not isinstance(content, str) or not content.startswith("@@"):
        return []
    out: list[Finding] = []
    read, first = gathering.read_decorators(content)
    for name, known in read:
        if known:
            if name not in gathering.KNOWN_DECORATORS:
                out.append(
                    e.finding(
                        "WI101",
                        "content",
                        message=f"decorator line {name!r} is removed from the content but has no "
                        "effect: it must be exactly @@activate or @@dont_activate (Q5)",
                    )
                )
            continue
        word = name.split()[0] if name.split() else name
        ccv3 = word in CCV3_DECORATORS
        out.append(
            e.finding(
                "WI100",
                "content",
                message=f"decorator {word!r} is "
                + ("a Character Card V3 decorator; " if ccv3 else "unknown; ")
                + "SillyTavern knows only @@activate and @@dont_activate and ignores it "
                "(the line is dropped from the content)",
            )
        )
    if first is None:
        out.append(
            e.finding(
                "WI102",
                "content",
                message="the content has only @@ lines: SillyTavern keeps them as the prompt text (Q4)",
            )
        )
    return out
