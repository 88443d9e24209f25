"""Key slots and entry kinds: what the fast path knows of each entry's keys before a scan.

A key's slot is its needle id in the plan's ``KeyIndex``, or ``EMPTY``/``UNKNOWN``/``REGEX - g``
(``plan``), decided by the same ``entry_rules`` functions ``match_key`` applies; an entry's
``Kind`` is decided by the scan-independent checks of ``passes._select``.
"""

from __future__ import annotations

from dataclasses import field

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo._js.regex import RegexKey, split_key
from worldinfo._record import record
from worldinfo.engine import entry_rules
from worldinfo.engine.fast.matcher import KeyIndex, Needle
from worldinfo.engine.fast.plan import EMPTY, REGEX, UNKNOWN, Kind, Secondary
from worldinfo.engine.regex_limits import RegexClock
from worldinfo.engine.timed_effects import entry_key
from worldinfo.macros.names import may_have_macros
from worldinfo.trust import DEFAULT_TRUST, TrustPolicy, key_refusal
from worldinfo.types import RawEntry, Settings


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


def kind_of(entry: RawEntry, primary: tuple[int, ...], secondary: Secondary | None) -> Kind:
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
