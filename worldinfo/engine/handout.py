"""Handing out the activated entries of a fast scan (R65, R27): their facts, their hashes,
and the per-scan copies SillyTavern's clones stand for.

The fast path activates a prepared (shared) entry whose content a substituter leaves as is
without copying it: the copy, equal to it field for field, is made when the result's
``activated`` is first read, as the ``hash`` of an entry no timed effect records is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from worldinfo._js import JSONValue
from worldinfo.engine.fast.entry_facts import Facts
from worldinfo.engine.state import WorkingState
from worldinfo.engine.timed_effects import may_record
from worldinfo.types import RawEntry

HandOut = Callable[[], tuple[Mapping[str, JSONValue], ...]]
"""Gives the activated entries their ``hash`` (and copies) and returns them, once."""


def activated_facts(scan: WorkingState, activated: list[RawEntry]) -> list[Facts | None] | None:
    """The prepared facts of each activated entry (``None`` for one the plan does not hold,
    such as a forced object); ``None`` off the fast path."""
    fast = scan.fast
    if fast is None:
        return None
    fast.plan.facts.fresh = False  # the first scan of the plan is over (``FactTable.fresh``)
    if len(fast.placed_facts) == len(activated):  # recorded by the budget phase
        return list(fast.placed_facts.values())
    table = fast.plan.facts
    entries = fast.plan.entries
    index = scan.index
    out: list[Facts | None] = []
    for entry in activated:
        pos = index.get(id(entry))
        out.append(None if pos is None else table.at(entries, pos))
    return out


def hand_out(
    scan: WorkingState, activated: list[RawEntry], facts: list[Facts | None] | None
) -> HandOut | None:
    """Hash now the activated entries that timed effects record (R65); return what gives
    the others their ``hash``, and copies the shared ones, when the result's ``activated``
    is first read (``None``: nothing is left to do)."""
    fast = scan.fast
    if fast is None or (not fast.unhashed and fast.shared is None):
        return None
    plan = fast.plan
    pending = fast.unhashed
    built = plan.entries.made if fast.shared is not None else None  # the shared objects
    index = scan.index
    placed = list(fast.placed.values()) if len(fast.placed) == len(activated) else None

    def todo(i: int) -> tuple[int, bool] | None:
        """(position, kept shared) of ``activated[i]`` when it still needs its hash."""
        entry = activated[i]
        at = placed[i] if placed is not None else index.get(id(entry))
        if at is None:
            return None  # a forced object
        kept = built is not None and built[at] is entry
        return (at, kept) if kept or id(entry) in pending else None  # else: copied, hashed

    # Only an entry with a truthy sticky or cooldown writes a record, which needs the hash.
    recording = (
        [i for i, e in enumerate(activated) if may_record(e)]
        if facts is None
        else [
            i
            for i, f in enumerate(facts)
            if (f.may_record if f is not None else may_record(activated[i]))
        ]
    )
    now = [(i, got) for i in recording if (got := todo(i)) is not None]
    if now:  # hashed in one batch; a shared entry gets its hash from the plan itself
        plan.ensure_hashes([pos for _, (pos, _) in now])
        for i, (pos, kept) in now:
            h = plan.ensure_hash(pos)
            if not kept:
                activated[i]["hash"] = h
    done = {i for i, (_, kept) in now if not kept}

    def finish() -> tuple[Mapping[str, JSONValue], ...]:
        later = [(i, got) for i in range(len(activated)) if i not in done and (got := todo(i))]
        plan.ensure_hashes([pos for _, (pos, _) in later])
        out = list(activated)
        for i, (pos, kept) in later:
            h = plan.ensure_hash(pos)
            if kept:
                out[i] = dict(activated[i])  # it carries the hash now (``Plan.ensure_hash``)
            else:
                activated[i]["hash"] = h
        return tuple(out)

    return finish
