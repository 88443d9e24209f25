"""The scan buffer: the text each entry is matched against, and key matching (R16-R26).

``ScanBuffer`` holds the chat (newest first), the injected prompts, the recursion buffer
and the min-activations skew. ``haystack(entry, state)`` builds an entry's scan text;
``match_key`` tests one already substituted and trimmed key against it. Haystacks and
their lower-cased forms are cached per buffer state, so entries with the same scan depth
and the same match flags share one string.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo._js.regex import RegexKey, RegexTimeout, shown
from worldinfo._record import field, record
from worldinfo.engine import entry_rules
from worldinfo.engine.regex_limits import RegexClock, TimeoutMemo
from worldinfo.engine.regex_outcomes import RegexOutcomes
from worldinfo.engine.timed_effects import entry_key
from worldinfo.trust import DEFAULT_TRUST, TrustPolicy, key_refusal
from worldinfo.types import ScanState, Settings

MATCHER = "\x01"
JOINER = "\n\x01"
MAX_SCAN_DEPTH = 1000

# Entry flag -> ScanData field, in the order SillyTavern appends them (R18 step 5).
MATCH_FLAGS = (
    ("matchPersonaDescription", "persona_description"),
    ("matchCharacterDescription", "character_description"),
    ("matchCharacterPersonality", "character_personality"),
    ("matchCharacterDepthPrompt", "character_depth_prompt"),
    ("matchScenario", "scenario"),
    ("matchCreatorNotes", "creator_notes"),
)
_WORD = re.compile(r"[A-Za-z0-9_]")


@record
class ScanData:
    """Card and persona text some entries also scan (``globalScanData``), and the trigger."""

    persona_description: str = ""
    character_description: str = ""
    character_personality: str = ""
    character_depth_prompt: str = ""
    scenario: str = ""
    creator_notes: str = ""
    trigger: str = "normal"


@record(frozen=False, kw_only=False)
class ScanBuffer:
    """SillyTavern's ``WorldInfoBuffer`` (R17-R21) with per-state caches."""

    chat: Sequence[str]
    settings: Settings
    scan_data: ScanData = field(default_factory=ScanData)
    inject: list[str] = field(default_factory=list)
    recurse: list[str] = field(default_factory=list)
    skew: int = 0
    regex: RegexClock = field(default_factory=RegexClock)
    memo: TimeoutMemo | None = None
    outcomes: RegexOutcomes | None = None
    """Regex key outcomes kept across scans (the fast path's ``ScanCache`` passes one)."""
    trust: TrustPolicy = DEFAULT_TRUST
    untrusted: frozenset[str] = frozenset()
    warnings: list[str] = field(default_factory=list)
    undecided: int = 0
    """Regex key tests answered "no match" undecided (timed out, refused at compile time,
    skipped once the scan's total was spent, or known to time out on the text)."""
    _refused: set[tuple[str, str]] = field(default_factory=set)
    _depth: list[str] = field(default_factory=list)
    _cache: dict[tuple[object, ...], str] = field(default_factory=dict)
    _lower: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        last = -1
        depth: list[str] = []
        for i, msg in enumerate(self.chat[:MAX_SCAN_DEPTH]):
            if _js.truthy(msg):
                depth.append(_js.trim(msg) if isinstance(msg, str) else _js.to_string(msg))
                last = i
            else:
                depth.append("")
        self._depth = depth[: last + 1]

    # --- state --------------------------------------------------------------------------

    @property
    def messages(self) -> list[str]:
        """The depth buffer (R17): trimmed messages, newest first, at most 1000."""
        return self._depth

    def scan_texts(self) -> tuple[str, ...]:
        """The card and persona fields in ``MATCH_FLAGS`` order."""
        return tuple(getattr(self.scan_data, name) for _, name in MATCH_FLAGS)

    def global_depth(self) -> float:
        """``world_info_depth + skew`` (``getDepth``)."""
        return _js.to_number(self.settings.depth) + self.skew

    def add_recurse(self, text: str) -> None:
        """Append recursed text (``addRecurse``)."""
        self.recurse.append(text)
        self._cache.clear()

    def advance_scan(self) -> None:
        """Widen the global scan depth by one message (``advanceScan``)."""
        self.skew += 1
        self._cache.clear()

    # --- haystacks ----------------------------------------------------------------------

    def haystack(self, entry: Mapping[str, JSONValue], state: ScanState) -> str:
        """The text ``entry`` is matched against in a pass of kind ``state`` (R18)."""
        d_raw = entry.get("scanDepth", UNDEFINED)
        d = self.global_depth() if _js.nullish(d_raw) else _js.to_number(d_raw)
        flags = tuple(_js.truthy(entry.get(f, UNDEFINED)) for f, _ in MATCH_FLAGS)
        key = (d, flags, state == ScanState.MIN_ACTIVATIONS)
        text = self._cache.get(key)
        if text is None:
            text = self._build(d, flags, state)
            self._cache[key] = text
        return text

    def _build(self, d: float, flags: tuple[bool, ...], state: ScanState) -> str:
        if d <= 0:
            return ""
        d = min(d, MAX_SCAN_DEPTH)
        n = 0 if math.isnan(d) else int(d)
        parts = [MATCHER + JOINER.join(self._depth[:n])]
        for on, (_, name) in zip(flags, MATCH_FLAGS, strict=False):
            value = getattr(self.scan_data, name)
            if on and value:
                parts.append(value)
        if self.inject:
            parts.append(JOINER.join(self.inject))
        if self.recurse and state != ScanState.MIN_ACTIVATIONS:
            parts.append(JOINER.join(self.recurse))
        return JOINER.join(parts)

    def segments(self, entry: Mapping[str, JSONValue], state: ScanState) -> list[tuple[str, str]]:
        """The labelled parts of ``entry``'s scan text (for explanations, not matching)."""
        d_raw = entry.get("scanDepth", UNDEFINED)
        d = self.global_depth() if _js.nullish(d_raw) else _js.to_number(d_raw)
        if not d > 0:
            return []
        n = int(min(d, MAX_SCAN_DEPTH))
        out = [(f"message {i} (newest = 0)", m) for i, m in enumerate(self._depth[:n])]
        for flag, name in MATCH_FLAGS:
            value = getattr(self.scan_data, name)
            if _js.truthy(entry.get(flag, UNDEFINED)) and value:
                out.append((f"scan source {name}", value))
        out += [(f"injected prompt {i}", t) for i, t in enumerate(self.inject)]
        if state != ScanState.MIN_ACTIVATIONS:
            out += [("recursion text", t) for t in self.recurse]
        return out

    def lower(self, text: str) -> str:
        """``text.toLowerCase()``, cached for haystacks."""
        low = self._lower.get(text)
        if low is None:
            if len(self._lower) > 256:
                self._lower.clear()
            low = _js.lower(text)
            self._lower[text] = low
        return low

    # --- matching -----------------------------------------------------------------------

    def match_key(self, haystack: str, needle: str, entry: Mapping[str, JSONValue]) -> bool:
        """``matchKeys``: does ``needle`` (substituted, trimmed) occur in ``haystack``? (R22-R25)

        An untrusted entry's key is first checked against the trust policy; a regex key is
        run within the time limits (``_test_regex``).
        """
        if self.untrusted and not self.key_allowed(needle, entry):
            return False
        if self.regex.over(needle):
            self.undecided += 1
            self.regex.skipped += 1
            return False
        rk = self.regex.compile(needle)
        if rk is not None:
            return self._test_regex(rk, haystack, entry)
        if not entry_rules.case_sensitive(entry, self.settings):
            haystack = self.lower(haystack)
            needle = _js.lower(needle)
        if not (entry_rules.whole_words(entry, self.settings) and entry_rules.one_word(needle)):
            return needle in haystack
        return whole_word_in(haystack, needle)

    def match_regex(self, haystack: str, rk: RegexKey, entry: Mapping[str, JSONValue]) -> bool:
        """``match_key`` for a key already known to compile to ``rk`` (``regex_key``'s result
        for it, which is cached): the same checks, without looking the key up again."""
        if self.untrusted and not self.key_allowed(rk.key, entry):
            return False
        if self.regex.remaining() <= 0:
            self.undecided += 1
            self.regex.skipped += 1
            return False
        return self._test_regex(rk, haystack, entry)

    def key_allowed(self, needle: str, entry: Mapping[str, JSONValue]) -> bool:
        """May ``entry`` use ``needle`` (the key about to be matched)? Only untrusted entries
        are ever refused (``trust.key_refusal``); each refusal is warned about once a scan."""
        where = entry_key(entry)
        if where not in self.untrusted:
            return True
        why = key_refusal(needle, self.trust)
        if why is None:
            return True
        if (where, needle) not in self._refused:
            self._refused.add((where, needle))
            self.warnings.append(f"untrusted {_where(entry)}: {why} refused: {shown(needle)}")
        return False

    def _test_regex(self, rk: RegexKey, haystack: str, entry: Mapping[str, JSONValue]) -> bool:
        """Test a regex key: through the remembered ``outcomes`` when there are some."""
        if self.outcomes is None:
            return self._run_regex(rk, haystack, entry) is True
        return self.outcomes.test(rk, haystack, lambda text: self._run_regex(rk, text, entry))

    def _run_regex(
        self, rk: RegexKey, haystack: str, entry: Mapping[str, JSONValue]
    ) -> bool | None:
        """Run a regex key within its per-key bound and what is left of the scan's total
        (``None``: undecided, reported); a key known to time out on this very text
        (``memo``) is not run again."""
        clock = self.regex
        limits = clock.limits
        memo = self.memo
        if memo is not None and (rk.key, haystack) in memo:
            self.undecided += 1
            self.warnings.append(
                f"regex key timed out on this text before, not run again: {_where(entry)}, "
                f"key {shown(rk.key)}"
            )
            return None
        remaining = clock.remaining()
        if remaining <= 0:
            self.undecided += 1
            clock.skipped += 1
            return None
        timeout = min(limits.per_key, remaining)
        start = limits.clock()
        try:
            return rk.test(haystack, timeout=timeout)
        except RegexTimeout as exc:
            self.undecided += 1
            if memo is not None and not exc.refused and timeout >= limits.per_key:
                memo.add(rk.key, haystack)
            self.warnings.append(f"regex key {exc.reason}: {_where(entry)}, key {shown(rk.key)}")
            return None
        finally:
            clock.spent += limits.clock() - start

    def finish(self) -> None:
        """Add the scan's summary warnings (regex keys skipped for want of time)."""
        if self.regex.skipped:
            self.warnings.append(
                f"regex time budget of {self.regex.limits.per_scan:g} s per scan used up: "
                f"{self.regex.skipped} regex key test(s) skipped (counted as no match)"
            )


def _where(entry: Mapping[str, JSONValue]) -> str:
    return f"book {entry.get('world')!r}, entry {_js.to_string(entry.get('uid', UNDEFINED))}"


def whole_word_in(haystack: str, needle: str) -> bool:
    """``/(?:^|\\W)(needle)(?:$|\\W)/`` without ``u``: word characters are ASCII only."""
    start = haystack.find(needle)
    n = len(needle)
    while start != -1:
        end = start + n
        before_ok = start == 0 or not _WORD.match(haystack[start - 1])
        after_ok = end == len(haystack) or not _WORD.match(haystack[end])
        if before_ok and after_ok:
            return True
        start = haystack.find(needle, start + 1)
    return False
