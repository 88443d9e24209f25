"""Key slots and entry kinds: what the fast path knows of each entry's keys before a scan.

A key's slot is its needle id in the plan's ``KeyIndex``, or ``EMPTY``/``UNKNOWN``/``REGEX - g``
(``plan``), decided by the same ``entry_rules`` functions ``match_key`` applies; an entry's
``Kind`` is decided by the scan-independent checks of ``passes._select``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo._js.regex import RegexKey, split_key
from worldinfo.engine import entry_rules
from worldinfo.engine.fast.matcher import KeyIndex, Needle
from worldinfo.engine.fast.plan import EMPTY, REGEX, UNKNOWN, Kind, Secondary
from worldinfo.engine.regex_limits import RegexClock
from worldinfo.engine.timed_effects import entry_key
from worldinfo.macros.names import may_have_macros
from worldinfo.trust import DEFAULT_TRUST, TrustPolicy, key_refusal
from worldinfo.types import RawEntry, Settings


@dataclass(frozen=True, slots=True, kw_only=True)
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
    if not case:
        text = _js.lower(text)
    if "\n" in text or "\x01" in text:
        return UNKNOWN
    word = whole and entry_rules.one_word(text)
    return needles.add(Needle(text=text, lowered=not case, whole_word=word))


def fixed_kind(entry: RawEntry) -> Kind | None:
    """The kind the entry has whatever its keys (``NEVER``, ``ALWAYS``), else ``None``."""
    rules = entry_rules
    if rules.is_disabled(entry):
        return Kind.NEVER
    if rules.has_decorator(entry, rules.ACTIVATE) or rules.is_constant(entry):
        return Kind.ALWAYS
    return None


def filtered(entry: RawEntry) -> bool:
    """Is the entry limited to some generation types or characters (``passes._select``)?"""
    return (
        entry_rules.triggers(entry) is not None or entry_rules.character_filter(entry) is not None
    )


def waits(entry: RawEntry) -> bool:
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
    if fixed is not None:
        return fixed
    if not primary or UNKNOWN in primary:
        return Kind.ALWAYS
    # Every other slot is decided: a regex slot too (``FastScan.nominates`` tests it as
    # ``match_key`` would).
    if gated or (secondary is not None and UNKNOWN in secondary.slots):
        return Kind.GATED
    return Kind.PLAIN


def kind_of(entry: RawEntry, primary: tuple[int, ...], secondary: Secondary | None) -> Kind:
    """Classify by the checks of ``passes._select`` that do not depend on the scan (the same
    ``entry_rules`` functions it calls)."""
    fixed = fixed_kind(entry)
    if fixed is not None:
        return fixed
    return kind_from(primary, secondary, fixed=None, gated=filtered(entry) or waits(entry))
