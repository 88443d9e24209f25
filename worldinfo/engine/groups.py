"""Inclusion groups (R42-R47): timed-effect filtering, scoring, prioritised or weighted pick.

Operates in place on one pass's candidate list, reproducing SillyTavern's removal quirk:
removing an entry that is no longer a candidate drops the *last* candidate (R43, Q14).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSError, JSONValue
from worldinfo.engine.buffer import ScanBuffer
from worldinfo.engine.timed_effects import TimedEffects
from worldinfo.types import RawEntry, ScanState

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Protocol
else:
    from worldinfo._lazy import Protocol

DEFAULT_WEIGHT = 100


OnRemove = Callable[[RawEntry, str], None]


class _Candidates:
    """The pass's candidate list during group filtering. Removals are recorded by identity
    and applied once at the end, so each costs O(1) instead of a scan of the list."""

    __slots__ = ("alive", "items", "on_remove", "tail")

    def __init__(self, items: list[RawEntry], on_remove: OnRemove | None) -> None:
        self.items = items
        self.alive = {id(e) for e in items}
        self.tail = len(items) - 1
        self.on_remove = on_remove

    def remove(self, entry: RawEntry, reason: str) -> None:
        """``removeEntry``: splice at ``indexOf(entry)``; at -1 the *last* one goes (R43)."""
        if id(entry) not in self.alive:
            while self.tail >= 0 and id(self.items[self.tail]) not in self.alive:
                self.tail -= 1
            if self.tail < 0:
                return
            entry, reason = self.items[self.tail], "group_quirk_removed"
        self.alive.discard(id(entry))
        if self.on_remove is not None:
            self.on_remove(entry, reason)

    def finish(self) -> None:
        """Apply the removals to the candidate list (order kept)."""
        if len(self.alive) != len(self.items):
            self.items[:] = [e for e in self.items if id(e) in self.alive]


def group_candidates(candidates: Sequence[RawEntry]) -> dict[str, list[RawEntry]]:
    """Map group name -> members in JavaScript key order (R42)."""
    grouped: dict[str, list[RawEntry]] = {}
    for entry in candidates:
        group = entry.get("group", UNDEFINED)
        if not _js.truthy(group):
            continue
        if not isinstance(group, str):
            raise JSError("item.group.split is not a function")
        for name in _js.split_group(group):
            if name:
                grouped.setdefault(name, []).append(entry)
    return {k: grouped[k] for k in _js.js_key_order(grouped)}


class KeyTest(Protocol):
    """A key test for scoring: does the raw ``key``, the ``slot``-th primary (or secondary)
    key of ``entry``, match?"""

    def __call__(self, entry: RawEntry, key: str, /, *, secondary: bool, slot: int) -> bool: ...


def score(
    buffer: ScanBuffer, entry: RawEntry, state: ScanState, key_test: KeyTest | None = None
) -> int:
    """``getScore``: raw primary (and secondary) key hits (R46)."""
    keys = entry.get("key", UNDEFINED)
    if not isinstance(keys, list) or not keys:
        return 0
    test: KeyTest
    if key_test is None:
        haystack = buffer.haystack(entry, state)

        def on_scan_text(e: RawEntry, k: str, *, secondary: bool, slot: int) -> bool:
            del secondary, slot  # the entry's own scan text answers every key
            return buffer.match_key(haystack, k, e)

        test = on_scan_text
    else:
        test = key_test
    primary = sum(
        1
        for i, k in enumerate(keys)
        if isinstance(k, str) and test(entry, k, secondary=False, slot=i)
    )
    secondary = entry.get("keysecondary", UNDEFINED)
    if not isinstance(secondary, list) or not secondary:
        return primary
    hits = sum(
        1
        for i, k in enumerate(secondary)
        if isinstance(k, str) and test(entry, k, secondary=True, slot=i)
    )
    logic = entry.get("selectiveLogic", UNDEFINED)
    if _js.strict_eq(logic, 0):
        return primary + hits
    if _js.strict_eq(logic, 3):
        return primary + hits if hits == len(secondary) else primary
    return primary


def filter_groups(
    candidates: list[RawEntry],
    *,
    activated: Mapping[str, RawEntry],
    buffer: ScanBuffer,
    state: ScanState,
    timed: TimedEffects,
    rng: Callable[[], float],
    on_remove: OnRemove | None = None,
    key_test: KeyTest | None = None,
) -> None:
    """``filterByInclusionGroups``: leave at most one winner per group in ``candidates``."""
    grouped = group_candidates(candidates)
    if not grouped:
        return
    pool = _Candidates(candidates, on_remove)
    try:
        _filter(grouped, pool, activated, buffer, state, timed, rng, key_test)
    finally:
        pool.finish()


def _filter(
    grouped: dict[str, list[RawEntry]],
    pool: _Candidates,
    activated: Mapping[str, RawEntry],
    buffer: ScanBuffer,
    state: ScanState,
    timed: TimedEffects,
    rng: Callable[[], float],
    key_test: KeyTest | None,
) -> None:
    has_sticky: dict[str, bool] = {}
    for name, members in grouped.items():
        has_sticky[name] = False
        stickies = [m for m in members if timed.is_active("sticky", m)]
        if stickies:
            for m in members:
                if not any(m is s for s in stickies):
                    pool.remove(m, "group_timed")
            has_sticky[name] = True
        for m in members:
            if timed.is_active("cooldown", m):
                pool.remove(m, "group_timed")
        for m in members:
            if timed.is_active("delay", m):
                pool.remove(m, "group_timed")

    use_scoring = buffer.settings.use_group_scoring
    for name, members in grouped.items():
        if not _js.truthy(use_scoring) and not any(
            _js.truthy(m.get("useGroupScoring", UNDEFINED)) for m in members
        ):
            continue
        if has_sticky[name]:
            continue
        scores = [score(buffer, m, state, key_test) for m in members]
        best = max(scores, default=float("-inf"))
        kept = []
        for m, s in zip(members, scores, strict=False):
            scored = _js.coalesce(m.get("useGroupScoring", UNDEFINED), use_scoring)
            if _js.truthy(scored) and s < best:
                pool.remove(m, "group_score")
            else:
                kept.append(m)
        grouped[name] = kept

    # strict equality with a group name (a string) is string equality with string groups
    winners_groups = {g for e in activated.values() if isinstance(g := e.get("group"), str)}
    for name, members in grouped.items():
        if has_sticky[name]:
            continue
        if name in winners_groups:
            for m in members:
                pool.remove(m, "group_already_active")
            continue
        if len(members) <= 1:
            continue
        _pick(pool, members, rng)


def _pick(pool: _Candidates, members: list[RawEntry], rng: Callable[[], float]) -> None:
    prio = [m for m in members if _js.truthy(m.get("groupOverride", UNDEFINED))]
    if prio:
        winner = _js.sort_desc_by_order(prio)[0]
    else:
        total: JSONValue = 0
        for m in members:
            total = _js.add(total, _js.coalesce(m.get("groupWeight", UNDEFINED), DEFAULT_WEIGHT))
        roll = rng() * _js.to_number(total)
        running: JSONValue = 0
        found = None
        for m in members:
            running = _js.add(
                running, _js.coalesce(m.get("groupWeight", UNDEFINED), DEFAULT_WEIGHT)
            )
            if _js.le(roll, running):
                found = m
                break
        if found is None:
            return
        winner = found
    for m in members:
        if m is not winner:
            pool.remove(m, "group_lost")
