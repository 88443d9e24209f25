"""Rules of ``shared/spec/st-macros.md`` the golden cases do not pin, one table row each
(the examples are the spec's own), plus the evaluator's bounds and trust switch."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from worldinfo._js import JSError, string_hash
from worldinfo._js.seedrandom import seedrandom_first
from worldinfo.macros import (
    Card,
    MacroContext,
    MacroSettings,
    MacroState,
    PowerUser,
    evaluate,
)
from worldinfo.macros.evaluator import MacroTypeError
from worldinfo.macros.moment import humanize

NOW = datetime(2025, 3, 14, 15, 9, 26, 535000, tzinfo=UTC)


def _ctx(**kw: object) -> MacroContext:
    base: dict[str, object] = {"user": "Alice", "char": "Sera", "clock": lambda: NOW}
    base.update(kw)
    return MacroContext(**base)  # type: ignore[arg-type]


def ev(text: str, *, local: dict[str, object] | None = None, **kw: object) -> str:
    return evaluate(text, context=_ctx(**kw), state=MacroState(local=local)).output


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("{{getvar::x}}{{setvar::x::1}}", "1"),  # M2.3: every setvar before any getvar
        ("{{setvar::x::1}}{{setvar::x::2}}{{getvar::x}}", "2"),
        ("{{random::{{user}}::{{user}}}}", "Alice"),  # env runs before random
        ("{{ user }}|{{USER}}", "{{ user }}|Alice"),  # M2.4
        ("{{foo}}{{}}{{user", "{{foo}}{{}}{{user"),  # M2.5
        ("{{reverse:{{user}}}}", "ecilA"),  # M4.5
        ("{{reverse:{{time}}}}", "emit{{}}"),  # broken: reverse runs before time
        ("a{{// a {{x}} b }}c", "a b }}c"),  # M4.6: an unknown macro ends the comment
        ("{{ // no}}", "{{ // no}}"),
        ("{{random a,b}}", "{{random a,b}}"),  # M8.1: no ":" after the word
        ("{{SETVAR::Up::1}}[{{getvar::up}}]", "[]"),  # M6: names are case-sensitive
        ("{{setvar::a::{{user}}}}", "}}"),  # M6.1: VALUE stops at the first "}"
        ("x{{noop}}y{{newline}}z", "xy\nz"),
        ("a \n{{trim}}\n b", "a  b"),  # M4.2: spaces stay
        ("{{banned 'x'}}", "{{banned 'x'}}"),  # M11: single quotes do not match
        ("{{time_UTC+330}} {{time_UTC+16}}", "8:39 PM 3:25 PM"),  # M10.3
        (
            "{{datetimeformat Do [of] MMMM, Qo [quarter], wo [week], X}}",
            "14th of March, 1st quarter, 11th week, 1741964966",
        ),
    ],
)
def test_spec_examples(text: str, want: str) -> None:
    assert ev(text) == want


@pytest.mark.parametrize(
    ("stored", "shown"),
    [("0x1A", "26"), ("0b11", "3"), ("1e3", "1000"), (" 42 ", "42"), ("007", "7")]
    + [("-0", "0"), ("Infinity", "Infinity"), (True, "1"), (False, "0"), (None, "0")]
    + [([5], "5"), ({"a": 1}, "[object Object]"), ("  ", "  "), ("abc", "abc")],
)
def test_getvar_numbers(stored: object, shown: str) -> None:  # M6.2
    assert ev("{{getvar::v}}", local={"v": stored}) == shown


def test_a_throwing_pass_is_undone_but_its_earlier_effects_stay() -> None:  # M2.7
    r = evaluate("{{setvar::a::x}}{{setvar:: ::y}}", context=_ctx(), state=MacroState(local={}))
    assert r.output == "{{setvar::a::x}}{{setvar:: ::y}}"
    assert r.state.local == {"a": "x"}
    assert r.caught_errors == ("{{setvar::",)


@pytest.mark.parametrize("formula", ["0d6", "d0", "010", "1d6 + 2", "d6+-1", ":20"])
def test_invalid_rolls_are_empty(formula: str) -> None:  # M7.1
    assert ev("[{{roll:" + formula + "}}]", math_random=lambda: 0.5) == "[]"


def test_roll_draws_one_value_per_die() -> None:  # M7.2
    draws = iter([0.0, 0.99, 0.5])
    assert ev("{{roll 3d6+2}}", math_random=lambda: next(draws)) == str(1 + 6 + 4 + 2)


@pytest.mark.parametrize(
    ("seconds", "phrase"),
    [(44, "a few seconds"), (45, "a minute"), (89, "a minute"), (90, "2 minutes")]
    + [(44 * 60, "44 minutes"), (45 * 60, "an hour"), (21 * 3600, "21 hours")]
    + [(22 * 3600, "a day"), (25 * 86400, "25 days"), (26 * 86400, "a month")]
    + [
        (300 * 86400, "10 months"),
        (320 * 86400, "a year"),
        (345 * 86400, "a year"),
        (800 * 86400, "2 years"),
    ],
)
def test_humanize_thresholds(seconds: int, phrase: str) -> None:  # M10.5
    assert humanize(seconds * 1000, with_suffix=False) == phrase
    assert humanize(-seconds * 1000, with_suffix=True) == phrase + " ago"


def test_seedrandom_matches_the_package_readme() -> None:
    assert seedrandom_first("hello.") == 0.9282578795792454  # seedrandom's documented value


def test_pick_depends_on_offset_and_is_stable() -> None:  # M8.2
    md = {"chat_id_hash": 42}
    once = [ev("{{pick::a::b::c::d::e::f::g::h}}", chat_metadata=md) for _ in range(3)]
    assert len(set(once)) == 1
    shifted = {
        ev(" " * n + "{{pick::a::b::c::d::e::f::g::h}}", chat_metadata=md) for n in range(12)
    }
    assert len(shifted) > 1


def test_non_string_content_throws_and_falsy_is_empty() -> None:  # M0.3
    assert ev("") == ""
    card = Card(name="Sera", chat="c1", description="{{setvar::a::1}}")
    with pytest.raises(JSError, match="content.includes is not a function") as caught:
        evaluate(5, context=_ctx(character=card), state=MacroState())
    assert isinstance(caught.value, MacroTypeError)
    assert caught.value.state.local == {"a": "1"}  # the card fields ran before the throw
    assert caught.value.state.chat_id_hash == string_hash("c1")


def test_card_fields_are_evaluated_without_card_macros() -> None:  # M1.1
    card = Card(name="Sera", description="{{description}} by {{user}}", scenario="S")
    assert ev("{{description}}", character=card) == "{{description}} by Alice"
    collapsed = PowerUser(collapse_newlines=True)
    card = Card(name="Sera", personality="a\n\n\nb\r")
    assert ev("{{personality}}", character=card, power_user=collapsed) == "a\nb"


def test_local_time_zone() -> None:  # M10
    assert ev("{{isodate}} {{isotime}}", tz=ZoneInfo("Pacific/Kiritimati")) == "2025-03-15 05:09"


def test_trust_switch_discards_writes_but_keeps_the_text() -> None:
    settings = MacroSettings(variable_writes=False, global_writes=False)
    r = evaluate(
        "{{setvar::a::1}}{{getvar::a}}{{incglobalvar::g}}",
        context=_ctx(),
        state=MacroState(local={"b": 2}, globals={"g": 1}),
        settings=settings,
    )
    assert r.output == "12"
    assert r.state.local == {"b": 2} and r.state.globals == {"g": 1}


def test_bounds_input_output_dice_and_nesting() -> None:
    small = MacroSettings(max_input=50, max_output=1000, max_dice=100)
    big = "{{user}}" * 10
    r = evaluate(big, context=_ctx(), state=MacroState(), settings=small)
    assert r.output == big and r.caught_errors == ("max_input",)
    card = Card(name="Sera", description="x" * 400)
    r = evaluate(
        "{{description}}" * 3, context=_ctx(character=card), state=MacroState(), settings=small
    )
    assert r.output == "{{description}}" * 3 and r.caught_errors == ("{{description}}",)
    r = evaluate(
        "{{roll:1000000d1000000}}|{{roll:100d1}}",
        context=_ctx(),
        state=MacroState(),
        settings=small,
    )
    assert r.output == "|100"
    loop = PowerUser(example_separator="{{mesExamples}}")  # the separator names itself
    card = Card(name="Sera", mes_example="<START>\nhi")
    out = ev("{{mesExamples}}", character=card, power_user=loop, main_api="kobold")
    assert out.endswith("hi\n")


@pytest.mark.parametrize(
    ("a", "b", "phrase"),
    [
        ("2025-03-14", "2025-03-10", "in 4 days"),
        ("2025-W11-5", "2025-03-14T00:00", "a few seconds ago"),  # ISO week date
        ("Fri, 14 Mar 2025 09:00:00 +0000", "2025-03-14T10:00:00Z", "an hour ago"),  # RFC 2822
        ("March 1, 2025", "2025/03/14", "13 days ago"),  # Date's fallback forms
        ("2025-02-30", "2025-03-01", "Invalid date"),
        ("2025-03-14T10:00", "tomorrow", "Invalid date"),
    ],
)
def test_time_diff_parsing(a: str, b: str, phrase: str) -> None:  # M10.4
    assert ev("{{timeDiff::" + a + "::" + b + "}}", tz=ZoneInfo("America/New_York")) == phrase


def test_growth_is_stopped_while_the_result_is_built() -> None:
    chat = ({"name": "Ann", "mes": "m" * 10_000, "is_user": True},)
    text = "{{lastMessage}}" * 1000  # would be 10,000,000 characters
    r = evaluate(text, context=_ctx(chat=chat), state=MacroState())
    assert r.output == text and r.caught_errors == ("{{lastMessage}}",)


def test_dice_and_picks_have_a_budget_per_evaluation() -> None:
    settings = MacroSettings(max_dice=10, max_picks=3)
    r = evaluate(
        "{{roll:6d1}}|{{roll:6d1}}|{{pick::a::a}}{{pick::a::a}}{{pick::a::a}}{{pick::a::a}}",
        context=_ctx(),
        state=MacroState(),
        settings=settings,
    )
    assert r.output == "6||aaa"
