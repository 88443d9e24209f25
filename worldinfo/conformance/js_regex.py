"""Runner for ``js-regex-cases/1``: regex keys against V8's answers (``golden/regex``).

Each case gives a key as written, a scan text and V8's ``expect``: ``true``/``false`` (the
result of ``RegExp.prototype.test``) or ``"invalid"`` (SillyTavern uses the key as plain
text). The key goes through the activation path: JavaScript ``trim()``, then ``regex_key``.
Where the file also states the rule's split (``js_pattern``/``js_flags``) or that the rule
refuses the key (``rule_reason``), ``split_key`` is checked against it; ``expect_untrimmed``
checks the raw key of the group-scoring path; ``plain_fallback`` checks the plain match.

ReDoS cases (``redos_cases``) run with ``DEFAULT_TIMEOUT`` and must finish, compile
included, within the file's ``redos_cap_ms`` of wall time. Where V8 answered they must give
V8's answer; where V8 ran out of time (``expect == "timeout"``) they pass when they report
a ``RegexTimeout`` naming the key, or answer ``false`` (every such input is built to fail).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from worldinfo._js import JSONValue, lower, trim
from worldinfo._js.regex import DEFAULT_TIMEOUT, RegexKey, RegexTimeout, regex_key, split_key
from worldinfo.conformance.base import Outcome, register

Answer = bool | str
"""``True``/``False``, ``"invalid"`` (plain key) or ``"timeout"``."""


def answer(
    key: str,
    haystack: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    compile_key: Callable[[str], RegexKey | None] = regex_key,
) -> Answer:
    """What worldinfo answers for one key (already trimmed or raw) and scan text."""
    rk = compile_key(key)
    if rk is None:
        return "invalid"
    try:
        return rk.test(haystack, timeout=timeout)
    except RegexTimeout as exc:
        if exc.key != key:
            return f"timeout naming {exc.key!r} instead of the key"
        return "timeout"


def _rule_problem(case: Mapping[str, JSONValue], key: str) -> str:
    """Check the key rule's split against the file's ``js_pattern``/``rule_reason``."""
    split = split_key(key)
    if "js_pattern" in case:
        want = (case["js_pattern"], case["js_flags"])
        if split != want:
            return f"rule split: expected {want!r}, got {split!r}"
    if "rule_reason" in case and split is not None and len(set(split[1])) == len(split[1]):
        return f"rule: expected refusal ({case['rule_reason']}), got {split!r}"
    return ""


def check_case(case: Mapping[str, JSONValue]) -> str:
    """Return ``""`` if worldinfo agrees with an ordinary case, else the first difference."""
    key = trim(case["key"])
    haystack = case["haystack"]
    problem = _rule_problem(case, key)
    if problem:
        return problem
    got = answer(key, haystack)
    if got != case["expect"]:
        return f"expected {case['expect']!r}, got {got!r}"
    if "expect_untrimmed" in case:
        raw = answer(case["key"], haystack)
        if raw != case["expect_untrimmed"]:
            return f"untrimmed key: expected {case['expect_untrimmed']!r}, got {raw!r}"
    if "plain_fallback" in case:
        plain = lower(key) in lower(haystack)
        if plain != case["plain_fallback"]:
            return f"plain fallback: expected {case['plain_fallback']!r}, got {plain!r}"
    return ""


def check_redos(case: Mapping[str, JSONValue], *, cap_ms: float) -> tuple[str, str]:
    """Run a ReDoS case; return (difference or ``""``, a note on what happened)."""
    key = trim(case["key"])
    start = time.perf_counter()
    # The bound includes compiling: bypass the cache.
    got = answer(key, case["haystack"], compile_key=regex_key.__wrapped__)
    ms = (time.perf_counter() - start) * 1000
    note = f"{got!r} in {ms:.0f} ms"
    if ms > cap_ms:
        return f"took {ms:.0f} ms, over the {cap_ms:.0f} ms bound", note
    want = case["expect"]
    if want == "timeout":
        if got not in ("timeout", False):
            return f"V8 timed out; expected a reported timeout or false, got {got!r}", note
    elif got != want:
        return f"expected {want!r}, got {got!r}", note
    return "", note


@register("js-regex-cases/1")
def run(data: JSONValue, _path: Path) -> Iterator[Outcome]:
    """Yield one outcome per case, ids ``regex/<case id>``."""
    for case in data.get("cases", []):
        problem = check_case(case)
        yield Outcome(case_id=f"regex/{case['id']}", ok=not problem, detail=problem)
    cap_ms = float(data.get("redos_cap_ms", 2000))
    for case in data.get("redos_cases", []):
        problem, note = check_redos(case, cap_ms=cap_ms)
        yield Outcome(case_id=f"regex/{case['id']}", ok=not problem, detail=problem or note)
