"""Lint checks across entries and books: duplicate uids, inclusion groups, recursion delay
levels (R29, R50, Q13) and the budget taken by constant entries (R48)."""

from __future__ import annotations

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo.lint.model import Finding, LintOptions, Located, is_enabled


def check_books(located: list[Located], options: LintOptions) -> list[Finding]:
    """Every cross-entry finding."""
    enabled = [e for e in located if is_enabled(e)]
    return [
        *_duplicate_uids(located),
        *_groups(enabled),
        *_delay_until_recursion(located, options),
        *_constant_budget(enabled, options),
    ]


def _duplicate_uids(located: list[Located]) -> list[Finding]:
    seen: dict[str, Located] = {}
    out = []
    for e in located:
        key = f"{e.book}.{_js.to_string(e.get('uid'))}"
        first = seen.setdefault(key, e)
        if first is e:
            continue
        out.append(
            e.finding(
                "WI080",
                "uid",
                message=f"uid {_js.to_string(e.get('uid'))} is used twice in book {e.book!r} (also at "
                f"{first.path}): SillyTavern tracks activation and timed effects by "
                "'book.uid', so once one of them is active the other cannot activate",
            )
        )
    return out


def _groups(enabled: list[Located]) -> list[Finding]:
    out: list[Finding] = []
    members: dict[str, list[Located]] = {}
    for e in enabled:
        group = e.get("group")
        if not isinstance(group, str) or not group:
            continue
        for name in _js.split_group(group):
            if not name:
                continue
            if _js.trim(name) != name:
                out.append(
                    e.finding(
                        "WI091",
                        "group",
                        message=f"group name {name!r} has whitespace around it: SillyTavern splits on "
                        "',' plus following spaces only, so it is a different group from "
                        f"{_js.trim(name)!r}",
                    )
                )
            members.setdefault(name, []).append(e)
    for name, group in members.items():
        overrides = [m for m in group if _js.truthy(m.get("groupOverride"))]
        if len(overrides) < 2:
            continue
        top = max(_js.to_number(m.get("order")) for m in overrides)
        tied = [m for m in overrides if _js.to_number(m.get("order")) == top]
        for loser in tied[1:]:
            out.append(
                loser.finding(
                    "WI090",
                    "groupOverride",
                    message=f"group {name!r}: this entry and {tied[0].path} both have groupOverride and "
                    f"order {_js.stringify(loser.get('order'))}; whichever comes first in scan "
                    "order always wins, so the tie is decided by book and entry order",
                )
            )
    return out


def _level(value: JSONValue) -> JSONValue:
    return 1 if value is True else value


def _delay_until_recursion(located: list[Located], options: LintOptions) -> list[Finding]:
    enabled = [e for e in located if is_enabled(e)]
    levels: list[JSONValue] = []
    for e in located:
        v = e.get("delayUntilRecursion")
        if _js.truthy(v) and not any(_js.strict_eq(_level(v), x) for x in levels):
            levels.append(_level(v))
    if not levels:
        return []
    out: list[Finding] = []
    feeders = [
        e
        for e in enabled
        if not _js.truthy(e.get("delayUntilRecursion"))
        and not _js.truthy(e.get("preventRecursion"))
        and isinstance(e.get("content"), str)
        and _js.trim(str(e.get("content")))
    ]
    possible_off = len(levels) >= 2
    possible_on = possible_off or bool(feeders)
    recursive = _js.truthy(options.settings.recursive)
    for e in enabled:
        if not _js.truthy(e.get("delayUntilRecursion")):
            continue
        if _js.truthy(e.get("excludeRecursion")):
            fate = (
                "it can fire only in delay-level passes with recursion off (Q13)"
                if possible_off
                else "with a single delay level it never fires"
            )
            out.append(
                e.finding(
                    "WI031",
                    "excludeRecursion",
                    message="delayUntilRecursion lets the entry fire only in recursion passes, and "
                    f"excludeRecursion keeps it out of them when recursion is on: {fate}",
                )
            )
            continue
        why = (
            "there is a single delay level and no other entry whose content could start a "
            "recursion pass (all are delayed, empty or preventRecursion)"
            if not possible_on
            else "with recursion off, a single delay level is consumed by the first pass and "
            "no recursion pass ever runs (Q13)"
        )
        if options.recursion_known:
            if possible_on if recursive else possible_off:
                continue
        elif possible_on:
            if possible_off:
                continue
            out.append(
                e.finding(
                    "WI030",
                    "delayUntilRecursion",
                    message="fires only when recursive scanning is on (SillyTavern's default is off): "
                    + why,
                    severity="info",
                )
            )
            continue
        out.append(e.finding("WI030", "delayUntilRecursion", message="never fires: " + why))
    return out


def _constant_budget(enabled: list[Located], options: LintOptions) -> list[Finding]:
    constants = [e for e in enabled if _js.truthy(e.get("constant"))]
    text = "".join(
        str(e.get("content")) + "\n" for e in constants if isinstance(e.get("content"), str)
    )
    tokens = _js.st_token_estimate(text)
    budget = options.budget
    if not constants or tokens < budget:
        return []
    first = constants[0]
    return [
        Finding(
            code="WI070",
            severity="warning",
            json_path="$",
            book=first.book,
            message=f"the {len(constants)} constant entries take about {tokens} tokens and the "
            f"budget is {budget} ({_js.stringify(options.settings.budget)}% of "
            f"{options.max_context}): they fill it on every turn and push out keyed entries",
        )
    ]
