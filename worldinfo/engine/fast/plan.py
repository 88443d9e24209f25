"""Prepared lore: what a scan needs to know about its entries, computed once per book version.

``getSortedEntries`` decorates and hashes every entry on every scan (R13-R15); the hash is a
cyrb53 over the entry's JSON text and dominates a scan of a large book. ``ScanCache`` (owned
by ``Session``, passed to ``check``) keeps, per book name, the decorated entry of every
``Entry`` object it has seen, and per book selection a ``Plan``: the sorted entries and the
static facts the fast scan path reads (key ids, which checks can never fire, ...). An
entry's hash is computed the first time something reads it: timed effects (then all
entries are hashed, once) or its activation (the activated copy carries it).

Books and entries are immutable values: a changed book is a new ``Book`` object, and only its
new ``Entry`` objects are decorated and hashed again. Mutating ``Entry.data`` in place is not
detected (``port.yaml``). The plan's entry objects are never handed out or mutated, except
that a lazily computed ``hash`` is added: a scan copies an entry before it writes to it
(``content`` substitution, R48).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo._js.regex import RegexKey, split_key
from worldinfo.engine import entry_rules, gathering
from worldinfo.engine.buffer import MATCH_FLAGS
from worldinfo.engine.fast.matcher import KeyIndex, Needle
from worldinfo.engine.gathering import (
    BookSelection,
    SelectedBooks,
    decorated_object,
    delay_levels,
    entry_hash,
    entry_hashes,
    select_books,
)
from worldinfo.engine.regex_limits import RegexClock
from worldinfo.engine.regex_outcomes import RegexOutcomes
from worldinfo.engine.timed_effects import entry_key
from worldinfo.macros.names import may_have_macros
from worldinfo.trust import DEFAULT_TRUST, TrustPolicy, key_refusal, untrusted_keys
from worldinfo.types import Book, Entry, RawEntry, Settings

Origin = tuple[Entry, str, list[int]]
"""Where a prepared entry comes from: the book entry, the book name, and its hash once known."""
EMPTY = -1
"""Slot of a key that is ``""``: it never matches (R26)."""
UNKNOWN = -2
"""Slot of a key the index cannot decide (regex, macro, non-string, line break)."""
REGEX = -10
"""``REGEX - g``: a regex key whose matches all contain one of the needles
``Plan.regex_needles[g]`` (``RegexKey.needles``); without them the key cannot match, with
one the regex itself is tested on the scan text."""
MAX_PLANS = 4


class Kind(IntEnum):
    """How the fast pass treats an entry."""

    NEVER = 0
    """Disabled: every check before ``disable`` is side-effect free, so it is never visited."""
    PLAIN = 1
    """Every check but the keys is known to pass: decided from the key index alone (and
    regex keys tested in order, where the key index has found one of their needles)."""
    GATED = 2
    """Cannot activate without a primary key hit: visited (full checks) only on a hit."""
    ALWAYS = 3
    """Visited in every pass through the full checks."""


@dataclass(frozen=True, slots=True)
class Secondary:
    """Secondary keys that apply (R32): the logic (0-3, 4 = never) and the key slots."""

    logic: int
    slots: tuple[int, ...]


@dataclass(slots=True)
class Plan:
    """The sorted entries of one book selection, and their static facts by position."""

    entries: tuple[RawEntry, ...]
    books: tuple[Book | None, ...]
    index: dict[int, int]
    keys: list[str]
    kind: list[Kind]
    config: list[int]
    configs: list[tuple[float | None, tuple[bool, ...]]]
    primary: list[tuple[int, ...]]
    secondary: list[Secondary | None]
    levels: list[JSONValue]
    needles: KeyIndex
    origins: list[Origin]
    hashed: bytearray
    by_needle: list[dict[int, list[int]]] = field(default_factory=list)
    always_visit: list[int] = field(default_factory=list)
    by_hash: dict[int, list[int]] = field(default_factory=dict)
    _by_key: dict[str, list[int]] | None = None
    _odd_indexed: bool = False
    _indexed_keys: set[str] = field(default_factory=set)
    indexed: bytearray = field(default_factory=bytearray)
    delay_positions: list[int] = field(default_factory=list)
    plain: list[bool] = field(default_factory=list)
    any_group: bool = False
    any_ignore_budget: bool = False
    all_hashed: bool = False
    trust: TrustPolicy = DEFAULT_TRUST
    untrusted: frozenset[str] = frozenset()
    """``"world.uid"`` of the untrusted entries (their keys pass ``trust.key_refusal``)."""
    regex_needles: list[tuple[int, ...]] = field(default_factory=list)
    """Needle ids of each regex key slot (``REGEX - g``): one of them is in every match."""
    regex_keys: list[RegexKey] = field(default_factory=list)
    """The compiled key of each regex key slot (``REGEX - g``)."""
    regex_positions: set[int] = field(default_factory=set)
    """Positions of the entries with a regex key slot (primary or secondary)."""

    def ensure_hash(self, pos: int) -> int:
        """Give the entry at ``pos`` its ``hash`` (R13), computed on first need, and return
        it: a scan without timed effects never reads the hash of an entry it does not
        activate, and activated entries get theirs when the result is read."""
        entry, world, memo = self.origins[pos]
        if not memo:
            memo.append(entry_hash(decorated_object(entry, world, trust=self.trust)))
        if not self.hashed[pos]:
            self.entries[pos]["hash"] = memo[0]
            self.hashed[pos] = 1
        return memo[0]

    def ensure_hashes(self, positions: Sequence[int]) -> None:
        """``ensure_hash`` for each position; the entries not hashed before are hashed in
        one batch (``entry_hashes``)."""
        todo = [p for p in positions if not self.origins[p][2]]
        if len(todo) > 1:
            objs = [
                decorated_object(e, w, trust=self.trust)
                for e, w, _ in map(self.origins.__getitem__, todo)
            ]
            for pos, h in zip(todo, entry_hashes(objs), strict=True):
                memo = self.origins[pos][2]
                if not memo:  # an entry selected twice shares its origin
                    memo.append(h)
        for pos in positions:
            self.ensure_hash(pos)

    def ensure_all_hashes(self) -> None:
        """Hash every entry and index them all by hash."""
        if self.all_hashed:
            return
        self.ensure_hashes(range(len(self.entries)))
        self.by_hash.clear()
        for pos in range(len(self.entries)):
            self.by_hash.setdefault(self.ensure_hash(pos), []).append(pos)
        self.all_hashed = True

    def index_key(self, key: str) -> None:
        """Hash the entries whose ``"world.uid"`` is ``key`` and index them by hash.

        Entries with equal hashes have equal JSON text (barring a cyrb53 collision,
        ``port.yaml``), so equal ``world`` and ``uid`` and the same key; only a ``world`` or
        ``uid`` whose JSON text does not decide its ``String`` (``null``, ``NaN``, arrays,
        ...) is not plain: those entries are indexed together. So every position listed
        under a hash in ``by_hash`` is all the positions with that hash.
        """
        if self.all_hashed or key in self._indexed_keys:
            return
        self._indexed_keys.add(key)
        positions = self.positions_of_key(key)
        if not self._odd_indexed and not all(self._plain(p) for p in positions):
            self._odd_indexed = True
            odd = [p for p in range(len(self.entries)) if not self._plain(p)]
            positions = sorted(set(positions) | set(odd))
        for pos in positions:
            if not self.indexed[pos]:
                self.indexed[pos] = 1
                self.by_hash.setdefault(self.ensure_hash(pos), []).append(pos)

    def find_record(self, key: str, text: str) -> int | None:
        """Position of the first entry whose ``String(hash)`` is ``text``, for the timed
        effect recorded under ``key``: the entries under ``key`` are hashed first; only when
        none of them has the hash is every entry hashed (a record of another entry)."""
        self.index_key(key)
        pos = self.first_with_hash(text)
        if pos is None and not self.all_hashed:
            self.ensure_all_hashes()
            pos = self.first_with_hash(text)
        return pos

    def first_with_hash(self, text: str) -> int | None:
        """Position of the first indexed entry whose ``String(hash)`` is ``text`` (hashes
        are integers below 2**53, so their strings are plain decimals)."""
        if not (text.isascii() and text.isdigit()) or (len(text) > 1 and text[0] == "0"):
            return None
        positions = self.by_hash.get(int(text))
        return positions[0] if positions else None

    def positions_of_key(self, key: str) -> list[int]:
        """Positions of the entries whose ``"world.uid"`` is ``key``."""
        if self._by_key is None:
            keys = self.keys
            first = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1), strict=True))
            self._by_key = {k: [p] for k, p in first.items()}
            if len(first) < len(keys):  # some key is shared: list every position
                self._by_key = {}
                for pos, k in enumerate(keys):
                    self._by_key.setdefault(k, []).append(pos)
        return self._by_key.get(key, [])

    def _plain(self, pos: int) -> bool:
        e = self.entries[pos]
        return _plain_id(e.get("world", UNDEFINED)) and _plain_id(e.get("uid", UNDEFINED))


def _plain_id(value: JSONValue) -> bool:
    """Is ``value``'s JSON text one-to-one with its ``String`` (strings, booleans,
    ``undefined``, finite numbers)?"""
    if isinstance(value, float):
        return math.isfinite(value)
    return value is UNDEFINED or isinstance(value, (str, int))


class ScanCache:
    """Decorated entries per book version and plans per selection, kept across scans."""

    def __init__(self) -> None:
        self._entries: dict[str, dict[int, tuple[RawEntry, Origin]]] = {}
        self._books: dict[str, tuple[Book, list[tuple[RawEntry, Origin]]]] = {}
        self._plans: dict[tuple[object, ...], Plan] = {}
        self._trust = DEFAULT_TRUST
        self.regex_outcomes = RegexOutcomes()
        """Regex key outcomes by text, kept across scans and books (``regex_outcomes``)."""

    def plan(
        self,
        books: Mapping[str, Book],
        selection: BookSelection,
        settings: Settings,
        *,
        trust: TrustPolicy = DEFAULT_TRUST,
        regex: RegexClock | None = None,
    ) -> Plan | None:
        """The plan for this selection; ``None`` when a selected book has no ``entries``.

        Compiling the regex keys of a new plan is charged to ``regex`` (the scan's clock);
        once it is spent, the remaining regex keys are left to the scan (``UNKNOWN``).
        """
        if trust != self._trust:  # untrusted entries are prepared under the policy
            self._entries.clear()
            self._books.clear()
            self._plans.clear()
            self._trust = trust
        selected = select_books(selection, books)
        names = selected.all_names()
        chosen = tuple(books.get(n) for n in names)
        if any(b is not None and b.entries is None for b in chosen):
            return None
        strategy = settings.character_strategy
        merge = 1 if _js.strict_eq(strategy, 1) else 2 if _js.strict_eq(strategy, 2) else 0
        case = _js.truthy(settings.case_sensitive)
        whole = _js.truthy(settings.match_whole_words)
        key = (selected, merge, case, whole)
        plan = self._plans.get(key)
        if plan is None or any(a is not b for a, b in zip(plan.books, chosen, strict=True)):
            for name in [n for n in self._books if n not in books]:
                del self._books[name]
                self._entries.pop(name, None)
            plan = self._build(selected, books, strategy, settings, regex or RegexClock())
            plan.books = chosen
            if key not in self._plans and len(self._plans) >= MAX_PLANS:
                self._plans.clear()
            self._plans[key] = plan
        return plan

    def forget_lines(self) -> None:
        """Forget which keys each line of text holds (for measuring scans of unseen text)."""
        for plan in self._plans.values():
            plan.needles.forget_lines()
        self.regex_outcomes.forget()

    def _templates(self, name: str, book: Book | None) -> list[tuple[RawEntry, Origin]]:
        """The decorated (not yet hashed) entries of a book, reusing unchanged ones."""
        if book is None or book.entries is None:
            return []
        cached = self._books.get(name)
        if cached is not None and cached[0] is book:
            return cached[1]
        old = self._entries.get(name, {})
        fresh: dict[int, tuple[RawEntry, Origin]] = {}
        out: list[tuple[RawEntry, Origin]] = []
        for entry in book.entries:
            hit = old.get(id(entry))
            if hit is None or hit[1][0] is not entry:
                obj = decorated_object(entry, book.name, trust=self._trust)
                hit = (obj, (entry, book.name, []))
            fresh[id(entry)] = hit
            out.append(hit)
        self._entries[name] = fresh
        self._books[name] = (book, out)
        return out

    def _build(
        self,
        selected: SelectedBooks,
        books: Mapping[str, Book],
        strategy: JSONValue,
        settings: Settings,
        regex: RegexClock,
    ) -> Plan:
        origin_of: dict[int, Origin] = {}

        def load(name: str, book: Book | None) -> list[RawEntry]:
            out: list[RawEntry] = []
            for template, origin in self._templates(name, book):
                origin_of[id(template)] = origin
                out.append(template)
            return out

        lore = gathering.load_lore(selected, books, trust=self._trust, entries_of=load)
        assert lore is not None  # plan() returned None already for a book without entries
        ordered = gathering.merge_sorted(
            global_entries=lore.global_entries,
            character_entries=lore.character_entries,
            chat_entries=lore.chat_entries,
            persona_entries=lore.persona_entries,
            strategy=strategy,
        )
        seen: set[int] = set()
        entries: list[RawEntry] = []
        origins: list[Origin] = []
        for obj in ordered:
            origins.append(origin_of[id(obj)])
            if id(obj) in seen:
                obj = dict(obj)
            seen.add(id(obj))
            entries.append(obj)
        untrusted = untrusted_keys(books.get(n) for n in selected.all_names())
        gate = Gate(policy=self._trust, untrusted=untrusted, regex=regex)
        return build_plan(entries, settings, origins, gate=gate)


@dataclass(frozen=True, slots=True, kw_only=True)
class Gate:
    """What a plan's keys are prepared under: the trust policy, the ``"world.uid"`` of the
    untrusted entries, and the scan's regex clock (compiling is charged to it)."""

    policy: TrustPolicy = DEFAULT_TRUST
    untrusted: frozenset[str] = frozenset()
    regex: RegexClock = field(default_factory=RegexClock)
    regex_needles: list[tuple[int, ...]] = field(default_factory=list)
    """Filled by ``_slot``: the needle ids of each regex key slot (``Plan.regex_needles``)."""
    regex_keys: list[RegexKey] = field(default_factory=list)
    """Filled by ``_slot``: the compiled key of each regex key slot (``Plan.regex_keys``)."""


def _slot(
    key: JSONValue, entry: RawEntry, settings: Settings, needles: KeyIndex, gate: Gate
) -> int:
    """The key's needle id, or ``EMPTY``/``UNKNOWN`` (the rules of ``match_key``, from ``entry_rules``;
    a key the trust policy refuses is ``UNKNOWN``: ``match_key`` refuses it)."""
    if not isinstance(key, str) or may_have_macros(key):
        return UNKNOWN
    untrusted = gate.untrusted and entry_key(entry) in gate.untrusted
    if untrusted and key_refusal(key, gate.policy) is not None:
        return UNKNOWN
    if not key:
        return EMPTY
    text = _js.trim(key)
    if text.startswith("/"):
        if gate.regex.over(text):
            return UNKNOWN  # not compiled now: the scan decides (and skips it) itself
        rk = gate.regex.compile(text) if split_key(text) is not None else None
        if rk is not None:
            if rk.needles is None or rk.exact_below is not None or rk.refused is not None:
                return UNKNOWN
            ids = tuple(
                needles.add(Needle(text=n, lowered=rk.lowered, whole_word=False))
                for n in rk.needles
            )
            gate.regex_needles.append(ids)
            gate.regex_keys.append(rk)
            return REGEX - (len(gate.regex_needles) - 1)
    case = entry_rules.case_sensitive(entry, settings)
    if not case:
        text = _js.lower(text)
    if "\n" in text or "\x01" in text:
        return UNKNOWN
    word = entry_rules.whole_words(entry, settings) and entry_rules.one_word(text)
    return needles.add(Needle(text=text, lowered=not case, whole_word=word))


def _secondary(
    entry: RawEntry, settings: Settings, needles: KeyIndex, gate: Gate
) -> Secondary | None:
    sec = entry_rules.secondary_keys(entry)
    if sec is None:
        return None
    return Secondary(
        logic=entry_rules.selective_logic(entry),
        slots=tuple(_slot(k, entry, settings, needles, gate) for k in sec),
    )


@dataclass(frozen=True, slots=True)
class Facts:
    """What the plan reads from an entry's scan settings (``FACT_FIELDS``) itself; shared
    by every entry with the same values."""

    config: tuple[float | None, tuple[bool, ...]]
    ignore_budget: bool
    delay: bool
    group: bool


FACT_FIELDS = ("scanDepth", *(f for f, _ in MATCH_FLAGS), "ignoreBudget", "delay", "group")
_ABSENTS = (object(),) * len(FACT_FIELDS)
_FACT_GETTER = operator.itemgetter(*FACT_FIELDS)


def facts(entry: RawEntry) -> Facts:
    """The ``Facts`` of an entry (reads only ``FACT_FIELDS``)."""
    sd = entry.get("scanDepth", UNDEFINED)
    return Facts(
        config=(
            None if _js.nullish(sd) else _js.to_number(sd),
            tuple(_js.truthy(entry.get(f, UNDEFINED)) for f, _ in MATCH_FLAGS),
        ),
        ignore_budget=_js.truthy(entry.get("ignoreBudget", UNDEFINED)),
        delay=_js.truthy(entry.get("delay", UNDEFINED)),
        group=_js.truthy(entry.get("group", UNDEFINED)),
    )


def _kind(entry: RawEntry, primary: tuple[int, ...], secondary: Secondary | None) -> Kind:
    """Classify by the checks of ``passes._select`` that do not depend on the scan (the same
    ``entry_rules`` functions it calls)."""
    rules = entry_rules
    if rules.is_disabled(entry):
        return Kind.NEVER
    if rules.has_decorator(entry, rules.ACTIVATE) or rules.is_constant(entry):
        return Kind.ALWAYS
    if not primary or UNKNOWN in primary:
        return Kind.ALWAYS
    # A regex slot is decided too: ``FastScan.nominates`` tests it as ``match_key`` would.
    decided = all(s >= EMPTY or s <= REGEX for s in primary) and (
        secondary is None or all(s >= EMPTY or s <= REGEX for s in secondary.slots)
    )
    plain = (
        decided
        and rules.triggers(entry) is None
        and rules.character_filter(entry) is None
        and not _js.truthy(rules.delay_level(entry))
        and not rules.excludes_recursion(entry)
        and not rules.has_decorator(entry, rules.DONT_ACTIVATE)
    )
    return Kind.PLAIN if plain else Kind.GATED


class _Prepare:
    """Per-plan memos: ``facts`` by the values of ``FACT_FIELDS``, and key slots by key text
    within the outcome of the entry-level key rules (``case_sensitive``, ``whole_words``):
    books repeat the same settings and keys across thousands of entries."""

    def __init__(self, settings: Settings, needles: KeyIndex, gate: Gate) -> None:
        self.settings = settings
        self.needles = needles
        self.gate = gate
        self._facts: dict[tuple[object, ...], Facts] = {}
        self._slots: dict[tuple[bool, bool], dict[str, int]] = {}
        self._all_fields = True

    def facts(self, entry: RawEntry) -> Facts:
        """The entry's facts."""
        sig: tuple[object, ...] | None = None
        if self._all_fields:  # books are uniform: stop trying after the first miss
            try:
                sig = _FACT_GETTER(entry)
            except KeyError:
                self._all_fields = False
        if sig is None:  # some field is missing: an ``_ABSENTS`` marker stands for it
            sig = tuple(map(entry.get, FACT_FIELDS, _ABSENTS))
        try:
            got = self._facts.get(sig)
        except TypeError:  # a list or object in a field: no sharing
            return facts(entry)
        if got is None:
            got = self._facts[sig] = facts(entry)
        return got

    def memo(self, entry: RawEntry) -> dict[str, int] | None:
        """The slot memo of the entry's key-rule outcome (``None``: an untrusted entry,
        whose keys the trust policy may refuse one by one)."""
        if self.gate.untrusted and entry_key(entry) in self.gate.untrusted:
            return None
        rules = entry_rules
        context = (
            rules.case_sensitive(entry, self.settings),
            rules.whole_words(entry, self.settings),
        )
        got = self._slots.get(context)
        if got is None:
            got = self._slots[context] = {}
        return got

    def slots(
        self, keys: JSONValue, entry: RawEntry, memo: dict[str, int] | None
    ) -> tuple[int, ...]:
        """``_slot`` of each key; memoised for non-regex keys by text within a context."""
        if not isinstance(keys, list):
            return ()
        if memo is not None:
            try:
                return tuple([memo[k] for k in keys])
            except (KeyError, TypeError):  # a key seen first, or not a string
                pass
        out: list[int] = []
        for k in keys:
            slot = memo.get(k) if memo is not None and isinstance(k, str) else None
            if slot is None:
                slot = _slot(k, entry, self.settings, self.needles, self.gate)
                if memo is not None and slot >= EMPTY and isinstance(k, str):
                    memo[k] = slot
            out.append(slot)
        return tuple(out)

    def secondary(self, entry: RawEntry, memo: dict[str, int] | None) -> Secondary | None:
        """``_secondary``, with the slot memo."""
        sec = entry_rules.secondary_keys(entry)
        if sec is None:
            return None
        return Secondary(
            logic=entry_rules.selective_logic(entry), slots=self.slots(sec, entry, memo)
        )


def build_plan(
    entries: list[RawEntry],
    settings: Settings,
    origins: list[Origin],
    *,
    gate: Gate | None = None,
) -> Plan:
    """Compute the static facts of sorted, decorated entries (each a distinct object)."""
    trust = gate or Gate()
    needles = KeyIndex()
    configs: dict[tuple[float | None, tuple[bool, ...]], int] = {}
    plan = Plan(
        entries=tuple(entries),
        books=(),
        index={id(e): i for i, e in enumerate(entries)},
        keys=[entry_key(e) for e in entries],
        kind=[],
        config=[],
        configs=[],
        primary=[],
        secondary=[],
        levels=delay_levels(entries),
        needles=needles,
        origins=origins,
        hashed=bytearray(len(entries)),
        indexed=bytearray(len(entries)),
        trust=trust.policy,
        untrusted=trust.untrusted,
        regex_needles=trust.regex_needles,
        regex_keys=trust.regex_keys,
    )
    prepare = _Prepare(settings, needles, trust)
    by_needle = plan.by_needle
    for pos, e in enumerate(entries):
        known = prepare.facts(e)
        memo = prepare.memo(e)
        primary = prepare.slots(e.get("key", UNDEFINED), e, memo)
        secondary = prepare.secondary(e, memo)
        kind = _kind(e, primary, secondary)
        cid = configs.setdefault(known.config, len(configs))
        if cid == len(by_needle):
            by_needle.append({})
            plan.configs.append(known.config)
        plan.kind.append(kind)
        plan.plain.append(kind == Kind.PLAIN)
        plan.config.append(cid)
        plan.primary.append(primary)
        plan.secondary.append(secondary)
        if any(s <= REGEX for s in primary) or (
            secondary is not None and any(s <= REGEX for s in secondary.slots)
        ):
            plan.regex_positions.add(pos)
        if kind == Kind.PLAIN or kind == Kind.GATED:
            table = by_needle[cid]
            for slot in primary if len(primary) == 1 else dict.fromkeys(primary):
                if slot >= 0:
                    ids: tuple[int, ...] = (slot,)
                elif slot <= REGEX:
                    ids = trust.regex_needles[REGEX - slot]
                else:
                    continue
                for nid in ids:
                    got = table.get(nid)
                    if got is None:
                        table[nid] = [pos]
                    else:
                        got.append(pos)
        elif kind == Kind.ALWAYS:
            plan.always_visit.append(pos)
        if "hash" in e:  # a stored ``hash`` field would read as the entry's own hash
            plan.ensure_hash(pos)
        if known.delay:
            plan.delay_positions.append(pos)
        plan.any_ignore_budget = plan.any_ignore_budget or known.ignore_budget
        plan.any_group = plan.any_group or known.group
    needles.freeze()
    return plan
