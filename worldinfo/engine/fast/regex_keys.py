"""Regex keys of ``PLAIN`` entries, decided by the fast pass as ``keys.keys_match`` would.

A ``PLAIN`` entry passes every check but its keys, so ``passes._select`` would go straight
to ``keys_match``: primary keys tested in order until one matches, then the secondary logic
over the secondary keys, tested lazily in order. Here a plain key is answered by the key
index; a regex key is "no match" unless the index found one of its needles
(``Plan.regex_needles``), and otherwise tested by ``ScanBuffer.match_regex`` (``match_key``
with the key's compiled form from the plan) on the entry's scan text (``text(pos)``:
``ScanBuffer.haystack``), as ``Probe.test`` would, so budgets, timeouts and their warnings
are the same, in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from worldinfo.engine import entry_rules
from worldinfo.engine.buffer import ScanBuffer
from worldinfo.engine.fast.plan import EMPTY, REGEX, Plan


def regex_nominates(
    plan: Plan,
    pos: int,
    *,
    hits: frozenset[int] | set[int],
    buffer: ScanBuffer,
    text: Callable[[int], str],
) -> bool:
    """Do the keys of the ``PLAIN`` entry at ``pos`` (with a regex key) activate it (R32)?"""
    entry = plan.entries[pos]

    def tests(slots: tuple[int, ...]) -> Iterator[bool]:  # one slot per key, in order
        for slot in slots:
            if slot >= 0:
                yield slot in hits
            elif slot == EMPTY or hits.isdisjoint(plan.regex_needles[REGEX - slot]):
                yield False
            else:
                yield buffer.match_regex(text(pos), plan.regex_keys[REGEX - slot], entry)

    if not any(tests(plan.primary[pos])):
        return False
    sec = plan.secondary[pos]
    if sec is None:
        return True
    return entry_rules.secondary_holds(sec.logic, tests(sec.slots))
