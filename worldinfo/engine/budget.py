"""The budget phase of one pass (R48 as reworked in 1.15): probability rolls, then contents
are added in candidate order until the token budget overflows; ``ignoreBudget`` entries
still pass, and an overflow lasts the whole scan."""

from __future__ import annotations

import math
from collections.abc import Callable

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.engine.fast.entry_facts import Facts, FactTable
from worldinfo.engine.state import WorkingState
from worldinfo.engine.timed_effects import entry_key
from worldinfo.types import RawEntry, Settings


def compute_budget(settings: Settings, max_context: JSONValue) -> int:
    """The token budget (R28 step 4): a percentage of the context, at least 1, capped."""
    pct = _js.to_number(settings.budget)
    if pct > 100:
        pct = 25
    budget = _js.js_round(pct * _js.to_number(max_context) / 100)
    if budget == 0 or math.isnan(budget):
        budget = 1
    cap = _js.to_number(settings.budget_cap)
    if cap > 0 and budget > cap:
        budget = cap
    return int(budget) if abs(budget) != float("inf") else 10**18


def units_limit(base_tokens: int, budget: int) -> int:
    """The fewest UTF-16 code units whose default token estimate, added to ``base_tokens``,
    reaches ``budget`` (``st_tokens_for_length`` never decreases as the length grows, so
    the budget overflows exactly when the counted text has at least this many units)."""
    if base_tokens >= budget:
        return 0
    lo, hi = 0, 1  # the estimate of ``lo`` units is under the budget, that of ``hi`` ...
    while base_tokens + _js.st_tokens_for_length(hi) < budget:
        lo, hi = hi, hi * 2
    while hi - lo > 1:  # ... reaches it
        mid = (lo + hi) // 2
        if base_tokens + _js.st_tokens_for_length(mid) < budget:
            lo = mid
        else:
            hi = mid
    return hi


def probability_and_budget(
    scan: WorkingState,
    candidates: list[RawEntry],
    base_tokens: int,
    *,
    more: Callable[[list[RawEntry]], bool] | None = None,
) -> None:
    """R48 as reworked in 1.15: ``ignoreBudget`` and an overflow that lasts the whole scan.

    ``more``: appends the next candidates to ``candidates`` when the loop reaches the last
    one (``False``: none are left); the candidates after an overflow are never asked for.
    """
    fast = scan.fast
    remaining_ignore = _ignoring(scan, candidates)
    new_content = ""
    # The default estimate depends on the length alone: count the text as it grows instead
    # of measuring the whole of it again for every entry. Any other counter sees the text.
    additive = scan.count_tokens is _js.st_token_estimate
    limit = units_limit(base_tokens, scan.budget) if additive else 0
    units = 0
    tracing = scan.trace is not None
    # The fast path reads each prepared entry's own fields from its ``Facts`` (the same
    # values, derived once per plan); a substituter that keeps text without macros as is
    # is not called for such a content.
    facts_of, table, built, keys, placed, placed_facts = _fast_tables(scan)
    plain_ok = fast is not None and fast.skip
    activated = scan.activated
    # A shared entry with a plain content, no roll and no ``ignoreBudget`` (``quick``: its
    # units) takes the first branch: the steps of the loop's own that apply to it.
    quick = facts_of.quick if facts_of is not None and additive else []
    quick_ok = bool(quick) and plain_ok and not tracing
    for i, entry in enumerate(candidates):
        if more is not None and i + 1 == len(candidates) and not more(candidates):
            more = None
        pos = scan.index.get(id(entry)) if table is not None else None
        if pos is not None and table[pos] is None:  # type: ignore[index]
            if facts_of.fresh:  # type: ignore[union-attr]
                _derive_rest(scan, candidates, i)  # this one and a few after it, at once
            else:  # now, so that the short branch can take it; a candidate at a plan position
                # was visited, so ``built`` holds the plan's object there (it or its original)
                facts_of.at(built, pos)  # type: ignore[union-attr,arg-type]
        if (
            quick_ok
            and pos is not None
            and quick[pos]
            and built[pos] is entry
            and not scan.overflowed
        ):
            units += quick[pos]
            if units >= limit:
                scan.overflowed = True
                continue
            key = keys[pos]
            activated[key] = entry
            placed[key] = pos
            placed_facts[key] = table[pos]  # type: ignore[index]  # ``quick``: a table
            continue
        facts = None
        if pos is not None:
            assert table is not None and facts_of is not None
            facts = table[pos] or facts_of.at(fast.plan.entries, pos)  # type: ignore[union-attr]
            ignore, rolls = facts.ignore_budget, facts.rolls
        else:
            ignore, rolls = _own_fields(entry)
        if ignore:
            remaining_ignore -= 1
        if scan.overflowed and not ignore:
            if remaining_ignore > 0:
                if tracing:
                    scan.note(entry, "skipped", "budget_skipped", {})
                continue
            if tracing:
                for rest in candidates[i:]:
                    scan.note(rest, "skipped", "budget_skipped", {})
            break
        if rolls and _roll_fails(scan, entry):
            continue
        plain = facts.plain_content if facts is not None and plain_ok else None
        if plain is not None and facts is not None and pos is not None and built[pos] is entry:
            content = plain  # a shared entry keeps it as is; it is copied when handed out
            units += facts.units
        else:
            entry, content = _write_content(scan, candidates, i, pos, plain)
            units += _js.utf16_len(content) + 1
        if not additive:
            new_content += content + "\n"
        if not ignore:
            # ``base_tokens + st_tokens_for_length(units) >= budget`` for the default counter
            counted = -1 if additive else scan.count_tokens(new_content)
            if units >= limit if additive else base_tokens + counted >= scan.budget:
                scan.overflowed = True
                if tracing:
                    used = base_tokens + (_js.st_tokens_for_length(units) if additive else counted)
                    scan.note(entry, "skipped", "budget", {"tokens": used, "budget": scan.budget})
                continue
        key = entry_key(entry) if pos is None else keys[pos]
        activated[key] = entry
        placed[key] = pos  # with ``activated``: the same keys in the same order (the fast
        placed_facts[key] = facts  # path's; ``_fast_tables``' own dicts without it)


def _ignoring(scan: WorkingState, candidates: list[RawEntry]) -> int:
    """How many candidates have a truthy ``ignoreBudget`` (none when the plan has none)."""
    fast = scan.fast
    if fast is not None and not fast.plan.any_ignore_budget and not scan.forced:
        return 0
    return sum(1 for e in candidates if _js.truthy(e.get("ignoreBudget")))


_BATCH = 64
"""Candidates whose facts are derived together in the first scan of a plan: the budget
phase reads those of every candidate it reaches (those after an overflow are derived for
nothing; a batch is not much cheaper an entry beyond a few dozen)."""


def _derive_rest(scan: WorkingState, candidates: list[RawEntry], i: int) -> None:
    """The facts of ``candidates[i : i + _BATCH]`` the plan holds, derived in one batch
    (``FactTable.derive``)."""
    fast = scan.fast
    assert fast is not None
    at = map(scan.index.get, map(id, candidates[i : i + _BATCH]))
    fast.plan.facts.derive(fast.plan.entries, [p for p in at if p is not None])


def _own_fields(entry: RawEntry) -> tuple[bool, bool]:
    """``Facts.ignore_budget`` and ``Facts.rolls``, read from an entry the plan lacks."""
    ignore = _js.truthy(entry.get("ignoreBudget", UNDEFINED))
    rolls = _js.truthy(entry.get("useProbability", UNDEFINED)) and not _js.strict_eq(
        entry.get("probability", UNDEFINED), 100
    )
    return ignore, rolls


def _roll_fails(scan: WorkingState, entry: RawEntry) -> bool:
    """The probability roll of an entry that rolls (none while it is sticky): on a failure
    the entry joins ``failed``."""
    if scan.timed.is_active("sticky", entry):
        return False
    roll = scan.rng() * 100
    if _js.le(roll, entry.get("probability", UNDEFINED)):
        return False
    scan.failed.add(id(entry))
    if scan.trace is not None:
        scan.note(entry, "skipped", "probability", {"roll": roll})
    return True


def _fast_tables(
    scan: WorkingState,
) -> tuple[
    FactTable | None,
    list[Facts | None] | None,
    list[RawEntry | None],
    list[str],
    dict[str, int | None],
    dict[str, Facts | None],
]:
    """The fast path's facts, their table by position, the plan's objects by position, the
    plan's keys and where the scan records the activated entries' positions and facts."""
    fast = scan.fast
    if fast is None:
        return None, None, [], [], {}, {}
    facts_of = fast.plan.facts
    table = facts_of.sized(fast.plan.entries)
    return facts_of, table, fast.plan.entries.made, fast.plan.keys, fast.placed, fast.placed_facts


def _write_content(
    scan: WorkingState, candidates: list[RawEntry], i: int, pos: int | None, plain: str | None
) -> tuple[RawEntry, str]:
    """Write the content of ``candidates[i]`` (``plain``, else substituted) to the scan's own
    copy of it, made now for a prepared entry; return the copy and the content."""
    entry = candidates[i]
    content = plain if plain is not None else scan.substitute(entry.get("content", ""))
    fast = scan.fast
    if fast is not None and fast.shared is not None and pos is not None:
        entry = _own(scan, candidates, i, entry, pos)
    entry["content"] = content
    return entry, content


def _own(
    scan: WorkingState, candidates: list[RawEntry], i: int, entry: RawEntry, pos: int
) -> RawEntry:
    """Copy a prepared (shared) entry before the scan writes to it, and use the copy from
    now on wherever the scan holds the entry: upstream mutates a per-scan clone (R27)."""
    fast = scan.fast
    assert fast is not None and fast.shared is not None
    if fast.shared[pos] is not entry:
        return entry
    copy = dict(entry)
    if not fast.plan.hashed[pos]:
        fast.unhashed[id(copy)] = pos  # hashed when the result is read (``loop``)
    if scan.index is fast.shared_index:
        scan.index = dict(scan.index)
    scan.index[id(copy)] = pos
    scan.entries[pos] = copy
    candidates[i] = copy
    return copy
