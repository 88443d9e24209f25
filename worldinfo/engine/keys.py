"""Key tests of one pass: the lazy, ordered primary and secondary tests of R26/R31-R32 and
group scoring's raw-key test (R46), answered by the key index where it knows the key and by
``ScanBuffer.match_key`` on the entry's scan text otherwise."""

from __future__ import annotations

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo.engine import entry_rules
from worldinfo.engine.fast.plan import EMPTY
from worldinfo.engine.groups import KeyTest
from worldinfo.engine.state import WorkingState
from worldinfo.types import RawEntry


class Probe:
    """Tests one entry's keys in this pass (R26): substitute, then the key index when it
    knows the key, else ``match_key`` on the entry's scan text (built on first need)."""

    __slots__ = ("entry", "haystack", "pos", "scan")

    def __init__(self, scan: WorkingState, entry: RawEntry) -> None:
        self.scan = scan
        self.entry = entry
        self.pos = scan.index.get(id(entry)) if scan.fast is not None else None
        self.haystack: str | None = None

    def test(self, key: JSONValue, *, secondary: bool, slot: int) -> bool:
        """Does ``key``, the ``slot``-th primary (or secondary) key, match (R26)?"""
        scan = self.scan
        text = scan.substitute(key)
        if not text:
            return False
        if self.pos is not None and text == key and scan.fast is not None:
            plan = scan.fast.plan
            sec = plan.secondary[self.pos]
            slots = plan.primary[self.pos] if not secondary else sec.slots if sec else ()
            if slot < len(slots):
                hit = scan.fast.test(self.pos, slots[slot])
                if hit is not None:
                    return hit
        if self.haystack is None:
            self.haystack = scan.buffer.haystack(self.entry, scan.state)
        return scan.buffer.match_key(self.haystack, _js.trim(text), self.entry)


def keys_match(scan: WorkingState, entry: RawEntry) -> str:
    """R31 steps 16-20 and R32: ``"key"`` when keys activate the entry, else the reason."""
    keys = entry_rules.primary_keys(entry)
    if keys is None:
        return "no_keys"
    probe = Probe(scan, entry)
    if not any(probe.test(k, secondary=False, slot=i) for i, k in enumerate(keys)):
        return "no_primary_match"
    secondary = entry_rules.secondary_keys(entry)
    if secondary is None:
        return "key"
    hits = (probe.test(k, secondary=True, slot=i) for i, k in enumerate(secondary))
    ok = entry_rules.secondary_holds(entry_rules.selective_logic(entry), hits)
    return "key" if ok else "secondary_logic"


def raw_key_test(scan: WorkingState) -> KeyTest:
    """Group scoring's key test (raw keys, R46) through the key index where it applies."""
    fast = scan.fast
    assert fast is not None
    plan = fast.plan
    haystacks: dict[int, str] = {}

    def test(entry: RawEntry, key: str, *, secondary: bool, slot: int) -> bool:
        pos = scan.index.get(id(entry))
        if pos is not None and key == _js.trim(key):
            sec = plan.secondary[pos]
            slots = plan.primary[pos] if not secondary else sec.slots if sec else ()
            if slot < len(slots):
                if slots[slot] == EMPTY:
                    return True  # the raw "" is a substring of everything (Q9)
                hit = fast.test(pos, slots[slot])
                if hit is not None:
                    return hit
        haystack = haystacks.get(id(entry))
        if haystack is None:
            haystack = haystacks[id(entry)] = scan.buffer.haystack(entry, scan.state)
        return scan.buffer.match_key(haystack, key, entry)

    return test
