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

from collections.abc import Mapping
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
    decorate_unhashed,
    delay_levels,
    entry_hash,
    entry_object,
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

    def ensure_hash(self, pos: int) -> None:
        """Give the entry at ``pos`` its ``hash`` (R13), computed on first need: a scan
        without timed effects never reads the hash of an entry it does not activate."""
        if self.hashed[pos]:
            return
        entry, world, memo = self.origins[pos]
        if not memo:
            obj = entry_object(entry, world, trust=self.trust)
            memo.append(entry_hash(decorate_unhashed(obj)))
        self.entries[pos]["hash"] = memo[0]
        self.hashed[pos] = 1

    def ensure_all_hashes(self) -> None:
        """Hash every entry and index them by hash (timed effects compare hashes)."""
        if self.all_hashed:
            return
        for pos in range(len(self.entries)):
            self.ensure_hash(pos)
            h = self.entries[pos]["hash"]
            assert isinstance(h, int)
            self.by_hash.setdefault(h, []).append(pos)
        self.all_hashed = True

    def first_with_hash(self, text: str) -> int | None:
        """Position of the first entry whose ``String(hash)`` is ``text`` (hashes are
        integers below 2**53, so their strings are plain decimals)."""
        if not (text.isascii() and text.isdigit()) or (len(text) > 1 and text[0] == "0"):
            return None
        positions = self.by_hash.get(int(text))
        return positions[0] if positions else None

    def positions_of_key(self, key: str) -> list[int]:
        """Positions of the entries whose ``"world.uid"`` is ``key``."""
        if self._by_key is None:
            self._by_key = {}
            for pos, k in enumerate(self.keys):
                self._by_key.setdefault(k, []).append(pos)
        return self._by_key.get(key, [])


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
                obj = entry_object(entry, book.name, trust=self._trust)
                hit = (decorate_unhashed(obj), (entry, book.name, []))
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
    word = entry_rules.whole_words(entry, settings, text)
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
        rules.triggers(entry) is None
        and rules.character_filter(entry) is None
        and not _js.truthy(rules.delay_level(entry))
        and not rules.excludes_recursion(entry)
        and not rules.has_decorator(entry, rules.DONT_ACTIVATE)
        and decided
    )
    return Kind.PLAIN if plain else Kind.GATED


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
        trust=trust.policy,
        untrusted=trust.untrusted,
        regex_needles=trust.regex_needles,
        regex_keys=trust.regex_keys,
    )
    for pos, e in enumerate(entries):
        keys = e.get("key", UNDEFINED)
        primary = (
            tuple(_slot(k, e, settings, needles, trust) for k in keys)
            if isinstance(keys, list)
            else ()
        )
        secondary = _secondary(e, settings, needles, trust)
        kind = _kind(e, primary, secondary)
        sd = e.get("scanDepth", UNDEFINED)
        cfg = (
            None if _js.nullish(sd) else _js.to_number(sd),
            tuple(_js.truthy(e.get(f, UNDEFINED)) for f, _ in MATCH_FLAGS),
        )
        cid = configs.setdefault(cfg, len(configs))
        if cid == len(plan.by_needle):
            plan.by_needle.append({})
            plan.configs.append(cfg)
        plan.kind.append(kind)
        plan.plain.append(kind == Kind.PLAIN)
        plan.config.append(cid)
        plan.primary.append(primary)
        plan.secondary.append(secondary)
        if any(s <= REGEX for s in primary + (secondary.slots if secondary else ())):
            plan.regex_positions.add(pos)
        if _js.truthy(e.get("ignoreBudget", UNDEFINED)):
            plan.any_ignore_budget = True
        if kind in (Kind.PLAIN, Kind.GATED):
            table = plan.by_needle[cid]
            for slot in dict.fromkeys(primary):
                ids = (
                    (slot,)
                    if slot >= 0
                    else trust.regex_needles[REGEX - slot]
                    if slot <= REGEX
                    else ()
                )
                for nid in ids:
                    table.setdefault(nid, []).append(pos)
        elif kind == Kind.ALWAYS:
            plan.always_visit.append(pos)
        if _js.truthy(e.get("delay", UNDEFINED)):
            plan.delay_positions.append(pos)
        plan.any_group = plan.any_group or _js.truthy(e.get("group", UNDEFINED))
    needles.freeze()
    return plan
