"""Regex keys of ``PLAIN`` entries, decided by the fast pass as ``keys.keys_match`` would.

A ``PLAIN`` entry passes every check but its keys, so ``passes._select`` would go straight
to ``keys_match``: primary keys tested in order until one matches, then the secondary logic
over the secondary keys, tested lazily in order. Here a plain key is answered by the key
index; a regex key is "no match" unless the index found one of its needles
(``Plan.regex_needles``), and otherwise tested by ``ScanBuffer.match_key`` on the entry's
scan text (``text(pos)``: ``ScanBuffer.haystack``), exactly the call ``Probe.test`` makes, so budgets, timeouts and their warnings
are the same, in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from worldinfo import _js
from worldinfo._js import JSONValue
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

    def tests(slots: tuple[int, ...], keys: list[JSONValue] | None) -> Iterator[bool]:
        for slot, key in zip(slots, keys or (), strict=False):
            if slot >= 0:
                yield slot in hits
            elif slot == EMPTY or hits.isdisjoint(plan.regex_needles[REGEX - slot]):
                yield False
            else:
                assert isinstance(key, str)
                yield buffer.match_key(text(pos), _js.trim(key), entry)

    if not any(tests(plan.primary[pos], entry_rules.primary_keys(entry))):
        return False
    sec = plan.secondary[pos]
    if sec is None:
        return True
    return entry_rules.secondary_holds(
        sec.logic, tests(sec.slots, entry_rules.secondary_keys(entry))
    )
