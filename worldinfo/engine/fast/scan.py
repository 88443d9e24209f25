"""The fast side of one scan: key hits per pass from the line index, and the entries to visit.

``FastScan`` is created by ``check`` for one evaluation over a ``Plan``. For every distinct
scan-text configuration (the entry's ``scanDepth`` and match flags, R18) it computes the set
of key ids present in that text in the current pass: the union over the newest ``n``
messages (kept incrementally, so a widening step only adds one message), the card fields,
the injected prompts and, outside ``MIN_ACTIVATIONS`` passes, the recursion texts. Entries
whose outcome is decided before any check with a side effect are then visited only when one
of their primary keys is present (``visit``); ``nominates`` decides a ``PLAIN`` entry from
the hits alone, exactly as ``passes._select`` would.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from itertools import compress, repeat
from operator import is_, itemgetter

from worldinfo._js import JSONValue
from worldinfo.engine import entry_rules
from worldinfo.engine.buffer import MAX_SCAN_DEPTH, ScanBuffer
from worldinfo.engine.fast.entry_facts import Facts
from worldinfo.engine.fast.found import SPARSE, Found, listed, nomination_codes, union_mask
from worldinfo.engine.fast.matcher import ALWAYS
from worldinfo.engine.fast.plan import EMPTY, REGEX, UNKNOWN, Plan
from worldinfo.engine.fast.recent import Visit
from worldinfo.engine.fast.regex_keys import regex_nominates
from worldinfo.types import RawEntry, ScanState

_ONLY_ALWAYS = frozenset({ALWAYS})
_PREFIX_KEEP = 8
_VISITS_KEEP = 16


class FastScan:
    """Per-scan key hits and visiting order over a ``Plan``.

    Args:
        plan: the prepared entries.
        buffer: the scan buffer of this evaluation.
        dynamic: positions that need the full checks in every pass of this scan (forced,
            sticky, cooling down or delayed entries).
        sticky: positions with an active sticky effect (``is_active("sticky")``).
    """

    def __init__(self, plan: Plan, buffer: ScanBuffer, dynamic: set[int], sticky: set[int]) -> None:
        self.plan = plan
        self.buffer = buffer
        self.dynamic = dynamic
        self.sticky = sticky
        self._always = sorted(set(plan.always_visit) | dynamic)
        self._always_key = tuple(self._always)
        self._state = ScanState.NONE
        self._hits: dict[int, frozenset[int] | set[int]] = {}
        self._texts: dict[int, str] = {}
        self._prefix: dict[int, frozenset[int]] = {0: frozenset()}
        self._extra: dict[tuple[bool, ...], frozenset[int]] = {}
        self._recurse_count = 0
        self._recurse_ids: frozenset[int] = frozenset()
        self._visit: dict[int, Found] = {}  # per configuration, this scan's last pass
        self.skip = False  # ``_select`` may be skipped for undecided plain entries
        self.shared: Sequence[dict[str, JSONValue]] | None = None  # the plan's own entries
        self.shared_index: dict[int, int] | None = None  # the plan's index, until copied
        self.unhashed: dict[int, int] = {}  # ``id`` of an entry copy made before its hash -> pos
        self.own: tuple[list[RawEntry], dict[int, int]] | None = None
        """The scan's entry list and index, while they lack entries ``visit`` has to add."""
        self.placed: dict[str, int | None] = {}  # activated key -> position (``None``: forced)
        self.placed_facts: dict[str, Facts | None] = {}  # activated key -> its facts

    def begin_pass(self, state: ScanState) -> None:
        """Start a pass: the buffer may have grown (recursion text, one more message)."""
        self._state = state
        self._hits.clear()
        self._texts.clear()

    # --- key hits -----------------------------------------------------------------------

    def hits(self, cid: int) -> frozenset[int] | set[int]:
        """Key ids present in the scan text of configuration ``cid`` in this pass."""
        got = self._hits.get(cid)
        if got is None:
            got = self._hits[cid] = self._compute(cid)
        return got

    def _compute(self, cid: int) -> frozenset[int] | set[int]:
        depth, flags = self.plan.configs[cid]
        buf = self.buffer
        d = buf.global_depth() if depth is None else depth
        if d <= 0:
            return _ONLY_ALWAYS
        d = min(d, MAX_SCAN_DEPTH)
        n = 0 if math.isnan(d) else int(d)
        prefix = self._depth_prefix(n)
        extra = self._extra_ids(flags)
        recursion = self._recursion_ids() if self._state != ScanState.MIN_ACTIVATIONS else None
        if not buf.skew:  # the depths a scan starts with: the same parts in the next scan
            parts = (prefix, extra, recursion or _ONLY_ALWAYS, _ONLY_ALWAYS)
            return self.plan.facts.recent.union(self.plan.needles, parts)
        out = set(prefix)
        out |= extra
        if recursion is not None:
            out |= recursion
        out.add(ALWAYS)
        return out

    def _depth_prefix(self, n: int) -> frozenset[int]:
        messages = self.buffer.messages
        n = min(n, len(messages))
        got = self._prefix.get(n)
        if got is not None:
            return got
        recent = self.plan.facts.recent if not self.buffer.skew else None
        texts = tuple(messages[:n]) if recent is not None else ()
        if recent is not None:
            got = recent.ids(self.plan.needles, texts)
        if got is None:
            start = max(k for k in self._prefix if k < n)
            acc = set(self._prefix[start])
            index = self.plan.needles
            for text in messages[start:n]:  # a message once seen: its ids as found then
                acc |= index.found_text(text) if recent is None else recent.text_ids(index, text)
            got = frozenset(acc)
            if recent is not None:
                recent.keep_ids(texts, got)
        if len(self._prefix) > _PREFIX_KEEP:
            keep = sorted(self._prefix)[-2:]
            self._prefix = {0: frozenset(), **{k: self._prefix[k] for k in keep}}
        self._prefix[n] = got
        return got

    def _extra_ids(self, flags: tuple[bool, ...]) -> frozenset[int]:
        got = self._extra.get(flags)
        if got is None:
            texts = [v for on, v in zip(flags, self.buffer.scan_texts(), strict=False) if on and v]
            got = self._extra[flags] = self._ids_in((*texts, *self.buffer.inject))
        return got

    def _recursion_ids(self) -> frozenset[int]:
        recurse = self.buffer.recurse
        if self._recurse_count != len(recurse):
            got = self.plan.facts.recent.ids(self.plan.needles, tuple(recurse))
            if got is None:
                new = self.plan.needles.found_all(recurse[self._recurse_count :])
                got = self.plan.facts.recent.keep_ids(tuple(recurse), self._recurse_ids | new)
            self._recurse_ids = got
            self._recurse_count = len(recurse)
        return self._recurse_ids

    def _ids_in(self, texts: tuple[str, ...]) -> frozenset[int]:
        """The key ids found in ``texts`` (as a recent scan found them, if one did)."""
        recent = self.plan.facts.recent
        got = recent.ids(self.plan.needles, texts)
        if got is None:
            got = recent.keep_ids(texts, frozenset(self.plan.needles.found_all(texts)))
        return got

    def test(self, pos: int, slot: int) -> bool | None:
        """Does the key in ``slot`` of the entry at ``pos`` match? ``None``: not indexed."""
        if slot == UNKNOWN:
            return None
        if slot == EMPTY:
            return False
        hits = self.hits(self.plan.config[pos])
        if slot <= REGEX:
            return None if not hits.isdisjoint(self.plan.regex_needles[REGEX - slot]) else False
        return slot in hits

    # --- visiting -----------------------------------------------------------------------

    def visit(self, *, build: bool = True) -> Visit:
        """Positions to visit this pass, ascending: the entries whose outcome is not known
        to be "skipped, with no side effect" from the key hits alone. The list is shared
        with later scans that visit the same positions: read it, never change it.
        ``build``: put every visited entry into the scan's list now (else ``build`` them
        as they are read)."""
        plan = self.plan
        parts = tuple(self._found(cid, table) for cid, table in enumerate(plan.by_needle) if table)
        memo = plan.facts.visits
        key = (self._always_key, tuple(map(id, parts)))
        got = memo.get(key)
        if got is None:
            if len(memo) >= _VISITS_KEEP:
                memo.clear()
            size = len(plan.keys)
            mask = union_mask([f.counts for f in parts], self._always, size)
            got = memo[key] = Visit(parts, mask, plan.facts.recent.found)
            if got.count * SPARSE < size:  # few: the positions their hit keys list
                hits = [(t, self.hits(cid)) for cid, t in enumerate(plan.by_needle) if t]
                got.take(listed(hits, self._always), *self._code_table())
        if build and self.own is not None and not got.built:
            self._own(got.positions)
            got.built = True  # in the plan, and in this scan's list
        return got

    def build(self, positions: list[int]) -> None:
        """Put the entries at ``positions`` into the scan's list, if it lacks some."""
        self._own(positions)

    def lacking(self, positions: list[int]) -> list[int]:
        """The positions among ``positions`` whose entry the scan's list lacks (``put``
        puts them in), in order (the entries read by one ``itemgetter`` call)."""
        if self.own is None or not positions:
            return []
        entries = self.own[0]
        held = itemgetter(*positions)(entries) if len(positions) > 1 else (entries[positions[0]],)
        if None not in held:  # the usual chunk (entries are dicts: none equals None)
            return []
        return list(compress(positions, map(is_, held, repeat(None))))

    def codes(self, visit: Visit) -> bytes:
        """How each position of ``visit`` is nominated: ``SIMPLE`` (a ``PLAIN`` entry with
        neither secondary nor regex keys: decided by being visited), ``PLAIN`` (its keys
        decide, ``nominates``) or ``FULL`` (``passes._select``)."""
        if visit.codes is None:
            table, every = self._code_table()
            visit.codes = self.plan.facts.recent.found.codes(visit.mask, table, every)
        return visit.codes

    def ahead(self, visit: Visit, n: int) -> list[int]:
        """``visit.head`` grown to ``n`` positions or every one (``Visit.ahead``), their
        codes in ``visit.head_codes``."""
        return visit.ahead(n, *self._code_table())

    def _code_table(self) -> tuple[bytearray, Callable[[], bytes]]:
        plan = self.plan
        table = plan.facts.codes(len(plan.keys))
        return table, partial(nomination_codes, plan.plain, plan.secondary, plan.regex_positions)

    def _own(self, positions: list[int]) -> None:
        """Put the entries at ``positions`` the scan's list lacks into it (and its index)."""
        self.put(self.lacking(positions))  # none when the scan has no list of its own

    def put(self, missing: list[int]) -> None:
        """Put the entries at ``missing`` (``lacking``) into the scan's list and index."""
        if not missing or self.own is None:
            return
        entries, index = self.own
        objs = self.plan.entries.make_all(missing)  # built together
        for pos, obj in zip(missing, objs, strict=True):
            entries[pos] = obj
        index.update(zip(map(id, objs), missing, strict=True))

    def _found(self, cid: int, table: dict[int, Sequence[int]]) -> Found:
        """The positions listed under the key ids present for configuration ``cid``
        (``found.FoundSets.found``: counted from the closest recent hits)."""
        plan = self.plan
        hits = self.hits(cid)
        got = plan.facts.recent.found.found(cid, table, hits, len(plan.keys), self._visit.get(cid))
        self._visit[cid] = got
        return got

    def haystack(self, pos: int) -> str:
        """The scan text of the entry at ``pos`` in this pass (``ScanBuffer.haystack``, which
        depends only on the entry's configuration, kept per configuration for the pass)."""
        cid = self.plan.config[pos]
        text = self._texts.get(cid)
        if text is None:
            text = self._texts[cid] = self.buffer.haystack(self.plan.entries[pos], self._state)
        return text

    def nominates(self, pos: int) -> bool:
        """For a visited ``PLAIN`` entry (a primary key or needle is present): its keys."""
        plan = self.plan
        sec = plan.secondary[pos]
        regex = pos in plan.regex_positions
        if sec is None and not regex:
            return True
        hits = self.hits(plan.config[pos])
        if regex:
            return regex_nominates(plan, pos, hits=hits, buffer=self.buffer, text=self.haystack)
        assert sec is not None
        return entry_rules.secondary_holds(sec.logic, (s != EMPTY and s in hits for s in sec.slots))


def hash_positions(plan: Plan, values: Sequence[JSONValue]) -> set[int]:
    """Positions of the entries whose hash is strictly equal to one of ``values``."""
    out: set[int] = set()
    for h in values:
        if type(h) is not int:  # an entry's hash is one; other values as ``===`` reads them
            if isinstance(h, bool) or not isinstance(h, (int, float)):
                continue
            if isinstance(h, float) and not h.is_integer():
                continue
            h = int(h)
        out.update(plan.by_hash.get(h, ()))
    return out


def dynamic_positions(
    plan: Plan, active: Mapping[str, Sequence[JSONValue]], forced: Mapping[str, object]
) -> set[int]:
    """Positions whose timed effects are active, or that are forced on, in this scan."""
    out: set[int] = set().union(*(hash_positions(plan, v) for v in active.values()))
    for key in forced:
        out.update(plan.positions_of_key(key))
    return out
