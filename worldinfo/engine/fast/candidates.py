"""The candidates of a fast pass, nominated as the budget phase reads them.

A recursion pass of a large book visits thousands of entries, but the budget phase reads
them in candidate order only until the budget overflows (a few hundred), and after an
overflow nothing reads the rest: no ``ignoreBudget`` entry is left to pass, no pending
delay level or source reads the pass's successful entries, no inclusion group sorts them.
In that case (``lazy_ok``) the entries that are decided from the key hits alone (``SIMPLE``
and ``PLAIN`` without regex keys: pure functions of the hits) are nominated a chunk at a
time, as the budget reaches them, and their objects are built only then. Every other
visited position (``FULL``, dynamic, regex keys: checks that may time out, warn or call the
substituter) is nominated first, in visiting order, before the budget phase, exactly as
``passes._nominate_fast`` does; so every side effect happens as before and the candidate
list, up to where the budget stops reading it, is the same list in the same order (sticky
entries first, R47).

The already activated and failed entries are those before the pass: the budget phase adds
to both while the later chunks are nominated.
"""

from __future__ import annotations

from collections.abc import Callable

from worldinfo.engine.fast.found import FULL, PLAIN, SIMPLE
from worldinfo.engine.fast.scan import FastScan
from worldinfo.types import RawEntry

Nominate = Callable[[int], RawEntry | None]
More = Callable[[list[RawEntry]], bool]
"""Append the next candidates (at least one) to the list; ``False`` when none are left."""
FIRST_CHUNK = 64
LAST_CHUNK = 256
"""Visited positions per chunk: the first chunk, doubling per chunk up to the last."""
NEW_OBJECTS = 48
"""Most entry objects the scan's list lacks that one chunk puts in (``FastScan.put``); a
chunk first stops before the first of them, so the positions it already holds are read
before any is built. The budget often stops a few candidates into a chunk that reaches
past what an earlier scan built: large.json's timed variant built 291 objects in turn 4,
70 with the cut (turn 4 28.1 -> 24.6 M instructions, ``bench/later_turns.py``). Fewer
per chunk build less but pay per chunk (8: turn 1 +4.6 M)."""


def lazy_candidates(
    fast: FastScan,
    entries: list[RawEntry],
    *,
    full: Nominate,
    keyed: Nominate,
    activated: dict[str, RawEntry],
    failed: set[int],
) -> tuple[list[RawEntry], More]:
    """The first candidates of the pass, and what appends the next ones.

    Args:
        fast: the scan's fast state (``FastScan.visit`` of this pass).
        entries: the scan's entry list.
        full: ``_select`` of a position (each object once).
        keyed: the keys of a ``PLAIN`` position.
        activated: the scan's activated entries (read now, before the budget phase).
        failed: the scan's failed entry ids (likewise).
    """
    plan = fast.plan
    keys = plan.keys
    dynamic = fast.dynamic
    visit = fast.visit(build=False)
    fast.ahead(visit, 1)  # the codes table filled, for ``full``
    if visit.eager is None:
        eager_at = plan.facts.recent.found.full(visit.mask)
        if plan.regex_positions:
            table = plan.facts.codes(len(keys))
            mask = visit.mask
            eager_at += [p for p in plan.regex_positions if mask[p] and table[p] == PLAIN]
        visit.eager = eager_at
    eager = set(visit.eager)
    eager |= dynamic
    order = sorted(eager)
    fast.build(order)
    table = plan.facts.codes(len(keys))
    got: dict[int, RawEntry | None] = {}
    for p in order:  # in visiting order: the checks that may have side effects
        if table[p] == FULL or p in dynamic:
            got[p] = full(p)
        elif keys[p] not in activated and (not failed or id(entries[p]) not in failed):
            got[p] = keyed(p)
    stuck = fast.sticky
    head = [e for p in order if p in stuck and (e := got.get(p)) is not None]
    for p in stuck:
        got.pop(p, None)
    taken = set(activated)
    gone = set(failed)
    cursor = [0, FIRST_CHUNK]

    def more(out: list[RawEntry]) -> bool:
        start, size = cursor
        while start < len(positions := fast.ahead(visit, start + size)):
            end = start + size
            some = positions[start:end]
            missing = fast.lacking(some)
            if missing and missing[0] != some[0]:  # first the positions it holds
                end = start + some.index(missing[0])
                some, missing = positions[start:end], []
            elif len(missing) > NEW_OBJECTS:  # then a few objects at a time
                end = start + some.index(missing[NEW_OBJECTS])
                some = positions[start:end]
                del missing[NEW_OBJECTS:]
            codes = visit.head_codes
            fast.put(missing)
            size = min(LAST_CHUNK, size * 2)
            cursor[0], cursor[1] = end, size
            before = len(out)
            if not gone and eager.isdisjoint(some) and codes.count(SIMPLE, start, end) == len(some):
                # Every position ``SIMPLE`` (the usual chunk): the same test, fewer steps.
                out += [e for p in some if keys[p] not in taken and (e := entries[p]) is not None]
            else:  # the same tests, in one pass: an eager position was nominated before
                out += [
                    chosen
                    for p, c in zip(some, codes[start:end], strict=True)
                    if (
                        chosen := got.get(p)
                        if p in eager
                        else None
                        if keys[p] in taken or (gone and id(entries[p]) in gone)
                        else entries[p]
                        if c == SIMPLE
                        else keyed(p)
                    )
                    is not None
                ]
            if len(out) > before:
                return True
            start = end
        return False

    if not head:
        more(head)
    return head, more


def lazy_ok(fast: FastScan, *, forced: bool, pending_levels: bool) -> bool:
    """May this pass's candidates be nominated as the budget reads them (module doc)?"""
    plan = fast.plan
    return fast.skip and not (forced or pending_levels or plan.any_group or plan.any_ignore_budget)
