"""The loop of passes inside one ``check`` (R49-R50): run a pass, decide the next state
(recursion, min-activations widening, a pending delay level), tell the activation sources.
"""

from __future__ import annotations

from collections.abc import Sequence

from worldinfo import _js
from worldinfo.engine.fast.plan import Plan
from worldinfo.engine.gathering import delay_levels
from worldinfo.engine.passes import run_pass
from worldinfo.engine.source_hooks import LoopState
from worldinfo.engine.state import WorkingState
from worldinfo.types import RawEntry, ScanState

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from worldinfo.engine.source_protocol import ActivationSource


def init_delay_levels(scan: WorkingState, plan: Plan | None) -> None:
    """R29: the distinct ``delayUntilRecursion`` levels, ascending; the lowest is current."""
    ordered = list(plan.levels) if plan is not None else delay_levels(scan.entries)
    scan.current_level = ordered.pop(0) if ordered else 0
    scan.pending_levels = ordered


def run_loops(scan: WorkingState, sources: Sequence[ActivationSource]) -> int:
    """Run passes until the state is ``NONE`` (or ``max_recursion_steps``); the loop count."""
    count = 0
    max_steps = scan.settings.max_recursion_steps
    while scan.state != ScanState.NONE:
        if _js.truthy(max_steps) and _js.le(max_steps, count):
            break
        count += 1
        scan.loop = count
        candidates, successful = run_pass(scan)
        # After an overflow only a pending delay level (or a source) reads these entries.
        wanted = not scan.overflowed or scan.pending_levels or sources
        for_recursion = (
            [e for e in successful if not _js.truthy(e.get("preventRecursion"))] if wanted else []
        )
        upcoming = next_state(scan, for_recursion)
        current = scan.state
        scan.state = upcoming
        if upcoming != ScanState.NONE:
            text = "\n".join(_js.to_string(e.get("content", "")) for e in for_recursion)
            if text:
                scan.buffer.add_recurse(text)
                scan.all_activated_text = text + "\n" + scan.all_activated_text
        if sources:
            scan_done(scan, sources, count, current, candidates, successful)
    return count


def next_state(scan: WorkingState, for_recursion: list[RawEntry]) -> ScanState:
    """R50: recursion, min-activations widening, or a pending delay level."""
    s = scan.settings
    recursive = _js.truthy(s.recursive)
    nxt = ScanState.NONE
    if recursive and not scan.overflowed and for_recursion:
        nxt = ScanState.RECURSION
    if (
        recursive
        and not scan.overflowed
        and scan.state == ScanState.MIN_ACTIVATIONS
        and scan.buffer.recurse
    ):
        nxt = ScanState.RECURSION
    min_act = _js.to_number(s.min_activations)
    if (
        nxt == ScanState.NONE
        and not scan.overflowed
        and min_act > 0
        and len(scan.activated) < min_act
    ):
        depth = scan.buffer.global_depth()
        depth_max = _js.to_number(s.min_activations_depth_max)
        over = (depth_max > 0 and depth > depth_max) or depth > len(scan.buffer.chat)
        if not over:
            nxt = ScanState.MIN_ACTIVATIONS
            scan.buffer.advance_scan()
    if nxt == ScanState.NONE and scan.pending_levels:
        nxt = ScanState.RECURSION
        scan.current_level = scan.pending_levels.pop(0)
    return nxt


def scan_done(
    scan: WorkingState,
    sources: Sequence[ActivationSource],
    count: int,
    current: ScanState,
    candidates: list[RawEntry],
    successful: list[RawEntry],
) -> None:
    state = LoopState(
        loop=count,
        current=current,
        candidates=candidates,
        successful=successful,
        activated=list(scan.activated.values()),
        next=scan.state,
        recursed_text=scan.all_activated_text,
        current_delay_level=_js.to_number(scan.current_level),
        budget=scan.budget,
        overflowed=scan.overflowed,
    )
    for source in sources:
        source.scan_done(state)
    scan.state = state.next
    scan.all_activated_text = state.recursed_text
    scan.budget = state.budget
    scan.overflowed = state.overflowed
