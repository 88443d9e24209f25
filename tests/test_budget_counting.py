"""The budget phase counts the default estimate piece by piece (it depends on the length
alone) and gives any other token counter the whole growing text, as upstream does."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo._js import JSONValue, canonical, st_token_estimate, st_tokens_for_length
from worldinfo.conformance import generate as gen
from worldinfo.conformance.st import message, observed, session_for
from worldinfo.engine.budget import units_limit


def _case(budget: int) -> dict[str, Any]:
    c = gen.case(name="budget", entries=300, messages=30, seed=11)
    c["settings"].update({"budget": budget, "depth": 8})
    extra = gen.chat(3, 99, vocab=150)
    c["steps"] = [{"type": "normal"}, {"type": "normal", "append": extra}]
    return c


def _run(case: dict[str, Any], counter: Any, *, fast: bool) -> list[Any]:
    session = session_for(case)
    session.count_tokens = counter
    if not fast:
        session.scan_cache = None
    out = []
    for step in case["steps"]:
        append = [message(m) for m in step.get("append") or ()]
        out.append(canonical(observed(session, session.generate("normal", append=append))))
    return out


def _wrapped(text: str) -> int:
    return st_token_estimate(text)


@pytest.mark.parametrize("budget", [1, 2, 5, 25], ids=lambda b: f"budget-{b}pct")
@pytest.mark.parametrize("fast", [True, False], ids=["fast", "straightforward"])
def test_incremental_default_equals_the_whole_text_count(budget: int, *, fast: bool) -> None:
    case = _case(budget)
    assert _run(case, st_token_estimate, fast=fast) == _run(case, _wrapped, fast=fast)


def test_other_counters_see_the_whole_growing_text() -> None:
    seen: list[str] = []

    def words(text: JSONValue) -> int:
        assert isinstance(text, str)
        seen.append(text)
        return len(text.split())

    case = _case(2)
    session = session_for(case)
    session.count_tokens = words
    result = session.generate("normal")
    grown = [t for t in seen if t]
    assert grown, "the counter was called"
    contents = "".join(str(e["content"]) + "\n" for e in result.activated)
    assert any(contents.startswith(t) or t.startswith(contents) for t in grown)
    assert max(map(len, grown)) >= len(contents)


@settings(max_examples=400, deadline=None)
@given(
    st.integers(min_value=0, max_value=10**6),
    st.one_of(st.integers(min_value=-5, max_value=10**6), st.just(10**18)),
)
def test_units_limit_is_where_the_default_estimate_reaches_the_budget(
    base: int, budget: int
) -> None:
    limit = units_limit(base, budget)
    assert limit == 0 or base + st_tokens_for_length(limit - 1) < budget
    assert base + st_tokens_for_length(limit) >= budget or limit == 0 and base >= budget
    for units in (limit - 1, limit, limit + 1, limit * 2 + 3):  # the test the loop makes
        if units > 0:
            assert (units >= limit) == (base + st_tokens_for_length(units) >= budget)
