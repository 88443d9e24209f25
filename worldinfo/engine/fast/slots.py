"""Key slots and entry kinds: what the fast path knows of each entry's keys before a scan.

A key's slot is its needle id in the plan's ``KeyIndex``, or ``EMPTY``/``UNKNOWN``/``REGEX - g``
(``plan``), decided by the same ``entry_rules`` functions ``match_key`` applies; an entry's
``Kind`` is decided by the scan-independent checks of ``passes._select``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import contains

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo._js.regex import RegexKey, split_key
from worldinfo._js.strings import lower_all, trim_all
from worldinfo._record import field, record
from worldinfo.engine import entry_rules
from worldinfo.engine.entry_rules import Fields
from worldinfo.engine.fast.matcher import KeyIndex, Needle
from worldinfo.engine.fast.plan import EMPTY, REGEX, UNKNOWN, Kind, Secondary
from worldinfo.engine.regex_limits import RegexClock
from worldinfo.engine.timed_effects import entry_key
from worldinfo.macros.names import may_have_macros
from worldinfo.trust import DEFAULT_TRUST, TrustPolicy, key_refusal
from worldinfo.types import RawEntry, Settings

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import cast
else:
    from worldinfo._lazy import cast


@record
class Gate:
    """What a plan's keys are prepared under: the trust policy, the ``"world.uid"`` of the
    untrusted entries, and the scan's regex clock (compiling is charged to it)."""

    policy: TrustPolicy = DEFAULT_TRUST
    untrusted: frozenset[str] = frozenset()
    regex: RegexClock = field(default_factory=RegexClock)
    regex_needles: list[tuple[int, ...]] = field(default_factory=list)
    """Filled by ``key_slot``: the needle ids of each regex key slot (``Plan.regex_needles``)."""
    regex_keys: list[RegexKey] = field(default_factory=list)
    """Filled by ``key_slot``: the compiled key of each regex key slot (``Plan.regex_keys``)."""


def key_slot(
    key: JSONValue,
    entry: RawEntry,
    settings: Settings,
    needles: KeyIndex,
    gate: Gate,
    *,
    context: tuple[bool, bool] | None = None,
) -> int:
    """The key's needle id, or ``EMPTY``/``UNKNOWN`` (the rules of ``match_key``, from ``entry_rules``;
    a key the trust policy refuses is ``UNKNOWN``: ``match_key`` refuses it).

    ``context``: the entry's ``case_sensitive`` and ``whole_words`` outcomes, known for an
    entry whose ``"world.uid"`` is not untrusted (then the trust policy is not consulted).
    """
    if not isinstance(key, str) or may_have_macros(key):
        return UNKNOWN
    if context is None:
        untrusted = gate.untrusted and entry_key(entry) in gate.untrusted
        if untrusted and key_refusal(key, gate.policy) is not None:
            return UNKNOWN
        context = (
            entry_rules.case_sensitive(entry, settings),
            entry_rules.whole_words(entry, settings),
        )
    return trusted_slot(key, case=context[0], whole=context[1], needles=needles, gate=gate)


def trusted_slot(key: str, *, case: bool, whole: bool, needles: KeyIndex, gate: Gate) -> int:
    """``key_slot`` of a string key without macros that the trust policy lets through, under
    the entry's ``entry_rules.case_sensitive`` and ``whole_words`` outcomes."""
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
    return plain_slot(text, case=case, whole=whole, needles=needles)


def plain_slot(text: str, *, case: bool, whole: bool, needles: KeyIndex) -> int:
    """The needle id of a trimmed, non-regex key ``text`` under the entry's case and
    whole-word rules (``entry_rules.case_sensitive``/``whole_words``), or ``UNKNOWN``."""
    return plain_slots([text], case=case, whole=whole, needles=needles)[0]


def plain_slots(texts: list[str], *, case: bool, whole: bool, needles: KeyIndex) -> list[int]:
    """``plain_slot`` of each text, the needles added in bulk."""
    if not case:
        texts = lower_all(texts)
    blob = "\x00".join(texts)
    good = None  # a text with a line break or ``\x01`` is never found line by line: UNKNOWN
    if "\n" in blob or "\x01" in blob:
        good = [i for i, t in enumerate(texts) if "\n" not in t and "\x01" not in t]
    chosen = texts if good is None else [texts[i] for i in good]
    words = list(map(entry_rules.one_word, chosen)) if whole else None
    ids = needles.add_texts(chosen, lowered=not case, whole_words=words)
    if good is None:
        return ids
    out = [UNKNOWN] * len(texts)
    for i, nid in zip(good, ids, strict=True):
        out[i] = nid
    return out


def learn_slots(
    keys: Sequence[JSONValue],
    memo: dict[str, int],
    *,
    context: tuple[bool, bool],
    needles: KeyIndex,
) -> None:
    """Put into ``memo`` the ``trusted_slot`` of each string key it lacks, under ``context``,
    where that slot is memoised (``EMPTY`` or a needle id); regex candidates (a trimmed
    ``/`` start), keys with macros and undecidable keys are left to ``key_slot``."""
    try:
        unique = dict.fromkeys(keys)
        distinct = [k for k in unique if k not in memo] if memo else list(unique)
    except TypeError:  # a list among the keys
        distinct = [
            k for k in dict.fromkeys(k for k in keys if isinstance(k, str)) if k not in memo
        ]
    if set(map(type, distinct)) <= {str}:
        fresh = cast("list[str]", distinct)
    else:
        fresh = [k for k in distinct if isinstance(k, str)]
    blob = "\x00".join(fresh)
    if "{{" in blob or "<" in blob:
        fresh = [k for k in fresh if not may_have_macros(k)]
    if "" in memo or "" in fresh:
        memo[""] = EMPTY
        fresh = [k for k in fresh if k]
    texts = trim_all(fresh)
    if "/" in blob:
        kept = [(k, t) for k, t in zip(fresh, texts, strict=True) if not t.startswith("/")]
        fresh, texts = [k for k, _ in kept], [t for _, t in kept]
    case, whole = context
    slots = plain_slots(texts, case=case, whole=whole, needles=needles)
    if not slots or min(slots) >= EMPTY:
        memo.update(zip(fresh, slots, strict=True))
    else:
        memo.update((k, s) for k, s in zip(fresh, slots, strict=True) if s >= EMPTY)


def fixed_kind(entry: Fields) -> Kind | None:
    """The kind the entry has whatever its keys (``NEVER``, ``ALWAYS``), else ``None``."""
    rules = entry_rules
    if rules.is_disabled(entry):
        return Kind.NEVER
    if rules.has_decorator(entry, rules.ACTIVATE) or rules.is_constant(entry):
        return Kind.ALWAYS
    return None


def filtered(entry: Fields) -> bool:
    """Is the entry limited to some generation types or characters (``passes._select``)?"""
    return (
        entry_rules.triggers(entry) is not None or entry_rules.character_filter(entry) is not None
    )


def waits(entry: Fields) -> bool:
    """Does a scan-dependent check other than its keys and filters apply to the entry
    (a delay level, excluded recursion, ``@@dont_activate``)?"""
    rules = entry_rules
    return (
        _js.truthy(rules.delay_level(entry))
        or rules.excludes_recursion(entry)
        or rules.has_decorator(entry, rules.DONT_ACTIVATE)
    )


def kind_from(
    primary: tuple[int, ...], secondary: Secondary | None, *, fixed: Kind | None, gated: bool
) -> Kind:
    """The kind from ``fixed_kind``, whether ``filtered`` or ``waits`` holds (``gated``), and
    the key slots."""
    return kinds_from([primary], [secondary], fixed=fixed, gated=gated)[0]


def kinds_from(
    primaries: Sequence[tuple[int, ...]],
    secondaries: Sequence[Secondary | None],
    *,
    fixed: Kind | None,
    gated: bool,
    keyed: bool = False,
) -> list[Kind]:
    """``kind_from`` of each entry of one class (the same ``fixed`` and ``gated``);
    ``keyed``: every primary is known to hold a slot, none ``UNKNOWN``."""
    if fixed is not None:
        return [fixed] * len(primaries)
    always, plain, waiting = Kind.ALWAYS, Kind.PLAIN, Kind.GATED
    if (
        not gated
        and secondaries.count(None) == len(secondaries)
        and (keyed or (() not in primaries and not any(map(contains, primaries, repeat(UNKNOWN)))))
    ):  # the common case, tested in C: every entry keyed, no key undecided
        return [plain] * len(primaries)
    # Every other slot is decided: a regex slot too (``FastScan.nominates`` tests it as
    # ``match_key`` would).
    return [
        always
        if not p or UNKNOWN in p
        else waiting
        if gated or (s is not None and UNKNOWN in s.slots)
        else plain
        for p, s in zip(primaries, secondaries, strict=True)
    ]


def kind_of(entry: Fields, primary: tuple[int, ...], secondary: Secondary | None) -> Kind:
    """Classify by the checks of ``passes._select`` that do not depend on the scan (the same
    ``entry_rules`` functions it calls)."""
    fixed = fixed_kind(entry)
    if fixed is not None:
        return fixed
    return kind_from(primary, secondary, fixed=None, gated=filtered(entry) or waits(entry))
