"""One scan pass (R30-R49): per-entry checks in upstream order, candidate order, inclusion
groups, then the budget phase (``budget``). With tracing on, every decision is noted."""

from __future__ import annotations

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.engine import entry_rules
from worldinfo.engine.budget import probability_and_budget
from worldinfo.engine.buffer import MATCHER
from worldinfo.engine.fast.candidates import More, Nominate, lazy_candidates, lazy_ok
from worldinfo.engine.fast.found import FULL, PLAIN, SIMPLE
from worldinfo.engine.fast.scan import FastScan, hash_positions
from worldinfo.engine.groups import filter_groups
from worldinfo.engine.keys import Probe, keys_match, raw_key_test
from worldinfo.engine.state import WorkingState
from worldinfo.engine.timed_effects import entry_key
from worldinfo.types import RawEntry, ScanState

Why = tuple[str, dict[str, JSONValue]]


def run_pass(scan: WorkingState) -> tuple[list[RawEntry], list[RawEntry]]:
    """Run one pass; return its candidates and its "successful" entries (R49)."""
    nominated: list[RawEntry] = []
    why: dict[int, Why] = {}
    fast = scan.fast
    if fast is not None:
        fast.begin_pass(scan.state)
    more: More | None = None
    lazy = fast is not None and lazy_ok(
        fast, forced=bool(scan.forced), pending_levels=bool(scan.pending_levels)
    )
    if fast is not None and lazy:
        nominated, more = _nominate_lazy(scan, fast)
    elif fast is not None and fast.skip:
        _nominate_fast(scan, fast, nominated)
    else:
        _nominate_all(scan, nominated, why)
    tracing = scan.trace is not None
    sticky = scan.timed.is_active
    candidates = nominated
    if not lazy and (scan.forced or scan.timed.active.get("sticky")):
        index = scan.index
        if fast is not None:
            stuck = fast.sticky

            def first(e: RawEntry) -> bool:
                pos = index.get(id(e))
                return pos in stuck if pos is not None else sticky("sticky", e)
        else:

            def first(e: RawEntry) -> bool:
                return sticky("sticky", e)

        if fast is not None and not scan.forced:
            # Nominated in ascending position, each entry once: the sort is a stable
            # partition, sticky entries first.
            on = {id(scan.entries[p]) for p in stuck}  # the objects nominated at ``stuck``
            top = [e for e in nominated if id(e) in on]
            if top:
                candidates = top + [e for e in nominated if id(e) not in on]
        else:
            candidates = sorted(
                nominated, key=lambda e: (0 if first(e) else 1, index.get(id(e), -1))
            )
    base_tokens = scan.count_tokens(scan.all_activated_text)
    if fast is None or fast.plan.any_group or scan.forced:
        filter_groups(
            candidates,
            activated=scan.activated,
            buffer=scan.buffer,
            state=scan.state,
            timed=scan.timed,
            rng=scan.rng,
            on_remove=(lambda e, r: scan.note(e, "skipped", r, {})) if tracing else None,
            key_test=raw_key_test(scan) if fast is not None else None,
        )
    probability_and_budget(scan, candidates, base_tokens, more=more)
    if tracing:
        for e in candidates:
            if scan.activated.get(entry_key(e)) is e:
                reason, detail = why.get(id(e), ("key", {}))
                scan.note(e, "activated", reason, detail)
    failed = scan.failed
    successful = [e for e in candidates if id(e) not in failed] if failed else candidates[:]
    return candidates, successful


def _nominate_all(scan: WorkingState, nominated: list[RawEntry], why: dict[int, Why]) -> None:
    """Candidate selection over every entry (R31), noting reasons when tracing."""
    tracing = scan.trace is not None
    seen: set[int] = set()
    for entry in scan.entries:
        warned = scan.buffer.undecided
        chosen, reason = _select(scan, entry)
        if tracing:
            _trace_selection(scan, entry, chosen, reason, warned, why)
        if chosen is not None and id(chosen) not in seen:
            seen.add(id(chosen))
            nominated.append(chosen)


def _nominate_lazy(scan: WorkingState, fast: FastScan) -> tuple[list[RawEntry], More]:
    """``_nominate_fast``'s candidates, sticky first, nominated as the budget reads them."""
    full, keyed = _choosers(scan, fast)
    return lazy_candidates(
        fast, scan.entries, full=full, keyed=keyed, activated=scan.activated, failed=scan.failed
    )


def _choosers(scan: WorkingState, fast: FastScan) -> tuple[Nominate, Nominate]:
    """The two ways a fast pass nominates the entry at a position: ``full`` runs ``_select``
    (an entry that is not ``PLAIN`` in this scan; each object once), ``keyed`` tests the keys
    of a ``PLAIN`` entry with secondary or regex keys, not active nor failed."""
    entries = scan.entries
    keys = fast.plan.keys
    plain = fast.plan.plain
    seen: set[int] = set()
    waiting: list[set[int]] = []  # the delayed and cooling positions, when first needed

    def full(pos: int) -> RawEntry | None:
        if plain[pos]:
            if not waiting:
                got = map(scan.timed.active.get, ("delay", "cooldown"), ((), ()))
                waiting.extend(hash_positions(fast.plan, v) for v in got)
            chosen = _select_plain(scan, pos, fast=fast, waiting=waiting)
        else:
            chosen, _ = _select(scan, entries[pos], key=keys[pos])
        if chosen is None or id(chosen) in seen:
            return None
        seen.add(id(chosen))
        return chosen

    def keyed(pos: int) -> RawEntry | None:
        return entries[pos] if fast.nominates(pos) else None

    return full, keyed


def _nominate_fast(scan: WorkingState, fast: FastScan, nominated: list[RawEntry]) -> None:
    """Candidate selection visiting only the entries that can be nominated or have a side
    effect; the others would be skipped by ``_select`` without calling anything."""
    entries = scan.entries
    keys = fast.plan.keys
    activated = scan.activated
    failed = scan.failed
    dynamic = fast.dynamic
    visit = fast.visit()
    codes = fast.codes(visit)
    full, keyed = _choosers(scan, fast)
    # In visiting order, so that checks with side effects (regex timeouts) keep their order.
    got = (
        [
            entries[p] if c == SIMPLE else keyed(p) if c == PLAIN else full(p)
            for p, c in zip(visit.positions, codes, strict=True)
            if c == FULL
            or (keys[p] not in activated and (not failed or id(entries[p]) not in failed))
        ]
        if not dynamic
        else [
            full(p) if c == FULL or p in dynamic else entries[p] if c == SIMPLE else keyed(p)
            for p, c in zip(visit.positions, codes, strict=True)
            if c == FULL
            or p in dynamic
            or (keys[p] not in activated and (not failed or id(entries[p]) not in failed))
        ]
    )
    nominated += [e for e in got if e is not None]


def _trace_selection(
    scan: WorkingState,
    entry: RawEntry,
    chosen: RawEntry | None,
    reason: str,
    warned: int,
    why: dict[int, Why],
) -> None:
    if reason == "no_primary_match" and scan.buffer.undecided > warned:
        reason = "regex_timeout"
    detail = _explain(scan, entry) if reason == "key" else {}
    if chosen is not None:
        why[id(chosen)] = (reason, detail)
    elif reason not in ("already_active", "failed_before"):
        scan.note(entry, "skipped", reason, detail)


def _explain(scan: WorkingState, entry: RawEntry) -> dict[str, JSONValue]:
    """The first primary key that matches, and the part of the scan text it was found in."""
    buf = scan.buffer
    probe = Probe(scan, entry)
    keys = entry.get("key")
    for i, k in enumerate(keys if isinstance(keys, list) else ()):
        if not probe.test(k, secondary=False, slot=i):
            continue
        needle = _js.trim(scan.substitute(k))
        for label, text in buf.segments(entry, scan.state):
            if buf.match_key(MATCHER + text, needle, entry):
                return {"key": k, "found_in": label}
        return {"key": k, "found_in": "scan text"}
    return {}


def _filtered_by_character(scan: WorkingState, entry: RawEntry) -> str:
    """R31 steps 3-4: character name and tag filters; the skip reason, or ``""``."""
    cf = entry_rules.character_filter(entry)
    if cf is None:
        return ""
    exclude = _js.truthy(cf.get("isExclude", UNDEFINED))
    names = cf.get("names", UNDEFINED)
    if isinstance(names, (list, str)) and len(names) > 0:
        file_name: JSONValue = scan.character.file_name if scan.character else UNDEFINED
        if isinstance(names, str):
            inc = _js.to_string(file_name) in names
        else:
            inc = any(_js.strict_eq(n, file_name) for n in names)
        if inc == exclude:
            return "character_filter"
    tags = cf.get("tags", UNDEFINED)
    if isinstance(tags, (list, str)) and len(tags) > 0 and scan.character is not None:
        if isinstance(tags, str):
            hit = any(t in tags for t in scan.character.tags)
        else:
            hit = any(_js.strict_eq(t, x) for t in scan.character.tags for x in tags)
        if hit == exclude:
            return "tag_filter"
    return ""


def _select_plain(
    scan: WorkingState, pos: int, *, fast: FastScan, waiting: list[set[int]]
) -> RawEntry | None:
    """``_select``'s object for a ``Plan.plain`` entry (no check that reads the entry alone
    applies), timed effects by position (``waiting``: delayed, cooling), in its order."""
    entry = scan.entries[pos]
    key = fast.plan.keys[pos]
    is_sticky = pos in fast.sticky
    if id(entry) in scan.failed or key in scan.activated or pos in waiting[0]:
        return None
    if pos in waiting[1] and not is_sticky:
        return None
    if key in scan.forced:
        return scan.forced[key]
    if is_sticky:
        return entry
    return entry if keys_match(scan, entry) == "key" else None


def _select(
    scan: WorkingState, entry: RawEntry, *, key: str | None = None
) -> tuple[RawEntry | None, str]:
    """R31: the checks in SillyTavern's order; the object to nominate (or ``None``) and why
    (``key``: the entry's ``entry_key``, when the plan knows it)."""
    key = entry_key(entry) if key is None else key
    if id(entry) in scan.failed:
        return None, "failed_before"
    if key in scan.activated:
        return None, "already_active"
    if entry_rules.is_disabled(entry):
        return None, "disabled"
    triggers = entry_rules.triggers(entry)
    if triggers is not None and scan.trigger not in [t for t in triggers if isinstance(t, str)]:
        return None, "trigger"
    filtered = _filtered_by_character(scan, entry)
    if filtered:
        return None, filtered
    timed = scan.timed
    is_sticky = timed.is_active("sticky", entry)
    if timed.is_active("delay", entry):
        return None, "delay"
    if timed.is_active("cooldown", entry) and not is_sticky:
        return None, "cooldown"
    delay_level = entry_rules.delay_level(entry)
    recursion = scan.state == ScanState.RECURSION
    if (
        not is_sticky
        and _js.truthy(delay_level)
        and (not recursion or _js.gt(delay_level, scan.current_level))
    ):
        return None, "delay_until_recursion"
    if (
        recursion
        and _js.truthy(scan.settings.recursive)
        and entry_rules.excludes_recursion(entry)
        and not is_sticky
    ):
        return None, "exclude_recursion"
    if entry_rules.has_decorator(entry, entry_rules.ACTIVATE):
        return entry, "decorator"
    if entry_rules.has_decorator(entry, entry_rules.DONT_ACTIVATE):
        return None, "dont_activate"
    if key in scan.forced:
        return scan.forced[key], "forced"
    if entry_rules.is_constant(entry):
        return entry, "constant"
    if is_sticky:
        return entry, "sticky"
    reason = keys_match(scan, entry)
    return (entry if reason == "key" else None), reason
