"""The full macro evaluator inside ``Session`` and the engine (spec st-macros §13, W1-W5)."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from worldinfo.conformance.st import session_for
from worldinfo.macros import MacroContext, Macros, MacroSettings, StMacros
from worldinfo.session import Session
from worldinfo.types import Book, Character, Entry, Message, Persona, Settings

NOON = datetime(2025, 3, 14, 12, 0, tzinfo=UTC)


def _session(entries: list[Entry], **kw: object) -> Session:
    book = Book(name="w", entries=tuple(entries))
    return Session(
        books={"w": book},
        settings=Settings(),
        character=Character(name="Sera", book="w", description=str(kw.pop("desc", ""))),
        persona=Persona(name="Ann"),
        chat=[Message(name="Ann", mes="the tower at dusk", is_user=True)],
        macro_context=MacroContext(clock=lambda: NOON, tz=ZoneInfo("Asia/Tokyo")),
        rng=random.Random(7).random,
        **kw,  # type: ignore[arg-type]
    )


def _uids(session: Session) -> list[object]:
    return [uid for _, uid in session.generate("normal").activated_keys]


def test_session_uses_the_full_evaluator_and_writes_variables_back() -> None:
    entries = [
        Entry.new(0, key=["tower"], content="{{setvar::quest::tower}}{{incglobalvar::seen}}A"),
        Entry.new(1, key=["{{getvar::quest}}"], content="at {{time}} ({{weekday}})"),
    ]
    session = _session(entries, global_variables={"seen": 4})
    assert isinstance(session.macros, StMacros)
    first = session.generate("normal")
    assert [e["content"] for e in first.activated] == ["5A"]  # the key saw no variable yet
    assert session.chat_metadata["variables"] == {"quest": "tower"}
    assert session.global_variables == {"seen": 5}
    assert isinstance(session.chat_metadata["chat_id_hash"], int)
    second = session.generate("normal")  # now {{getvar::quest}} is "tower"
    assert [e["content"] for e in second.activated] == ["6A", "at 9:00 PM (Friday)"]
    assert session.global_variables == {"seen": 6}


def test_a_card_field_side_effect_runs_on_every_key_check() -> None:
    entries = [Entry.new(i, key=[f"{{{{char}}}} k{i}"], content="x") for i in range(3)]
    session = _session(entries, desc="{{incvar::calls}}")
    session.generate("normal")
    calls = session.chat_metadata["variables"]["calls"]
    # one per key check and per card field prepared for the scan, never fewer than the keys
    assert isinstance(calls, int) and calls >= 3
    assert not session.macros.identity_without_braces  # type: ignore[attr-defined]


def test_roll_draws_from_the_session_math_random() -> None:
    entries = [Entry.new(0, key=["tower"], content="{{roll:3d6}}")]
    session = _session(entries)
    result = session.generate("normal")
    assert session.rng.calls == 3  # one Math.random draw per die, on the WI stream
    assert 3 <= int(str(result.activated[0]["content"])) <= 18


def test_trust_switch_keeps_variables_unchanged() -> None:
    entries = [Entry.new(0, key=["tower"], content="{{setvar::q::1}}{{getvar::q}}")]
    session = _session(entries, macro_settings=MacroSettings(variable_writes=False))
    result = session.generate("normal")
    assert result.activated[0]["content"] == "1"  # the text is SillyTavern's
    assert "variables" not in session.chat_metadata or session.chat_metadata["variables"] == {}


def test_fast_path_equals_straightforward_path_with_the_full_evaluator() -> None:
    entries = [
        Entry.new(0, key=["tower"], content="{{user}} sees it"),
        Entry.new(1, key=["<USER>"], content="angle"),  # an angle macro without braces
        Entry.new(2, key=["Ann"], content="plain", selective=True, keysecondary=["dusk"]),
        Entry.new(3, key=["{{random::tower::moon}}"], content="r"),
        Entry.new(4, key=["nothing here"], content="never"),
    ]
    fast, slow = _session(entries), _session(entries)
    slow.scan_cache = None
    assert fast.macros.identity_without_braces  # type: ignore[attr-defined]
    for _ in range(3):
        assert _uids(fast) == _uids(slow)
    assert {0, 1, 2} <= set(_uids(fast))  # <USER> became "Ann", which the chat contains


def test_world_info_runner_keeps_the_names_only_substituter() -> None:
    case = {
        "books": {},
        "settings": {},
        "max_context": 8192,
        "rng": {"seed": 1},
        "persona": {"name": "Ann"},
    }
    assert type(session_for(case).macros) is Macros


def test_a_front_end_substituter_is_still_used() -> None:
    seen: list[object] = []

    def factory(user: str, char: str) -> Macros:
        seen.append((user, char))
        return Macros(user=user, char=char)

    session = _session(
        [Entry.new(0, key=["tower"], content="{{random::a::b}}")], substitute=factory
    )
    result = session.generate("normal")
    assert seen == [("Ann", "Sera")]
    assert result.activated[0]["content"] == "{{random::a::b}}"


def test_keys_without_braces_never_reach_the_evaluator(monkeypatch: pytest.MonkeyPatch) -> None:
    from worldinfo.macros import substituter

    calls: list[object] = []
    real = substituter.evaluate  # type: ignore[attr-defined]  # the module-level name the test patches

    def counting(value: object, **kw: object) -> object:
        calls.append(value)
        return real(value, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(substituter, "evaluate", counting)
    entries = [Entry.new(i, key=[f"word{i}", f"other{i}"], content=f"c{i}") for i in range(300)]
    entries.append(Entry.new(300, key=["tower"], content="{{user}} at the tower"))
    session = _session(entries)
    result = session.generate("normal")
    assert [e["content"] for e in result.activated] == ["Ann at the tower"]
    assert not any(isinstance(v, str) and v.startswith(("word", "other")) for v in calls)
    assert "{{user}} at the tower" in calls  # content with a macro is evaluated


def test_the_trust_policy_denies_variable_writes_while_an_untrusted_book_is_loaded() -> None:
    from dataclasses import replace

    from worldinfo.trust import TrustPolicy
    from worldinfo.types import Origin

    untrusted = Origin(file="shared.json", format="st-world", container="shared", trusted=False)
    entry = Entry.new(0, key=["tower"], content="{{setvar::q::1}}{{getvar::q}}")
    denied = _session([replace(entry, origin=untrusted)])
    assert denied.generate("normal").activated[0]["content"] == "1"  # same text as upstream
    assert denied.chat_metadata.get("variables", {}) == {}
    allowed = _session(
        [replace(entry, origin=untrusted)], trust=TrustPolicy(allow_variable_writes=True)
    )
    allowed.generate("normal")
    assert allowed.chat_metadata["variables"] == {"q": "1"}
    trusted = _session([entry])
    trusted.generate("normal")
    assert trusted.chat_metadata["variables"] == {"q": "1"}


@pytest.mark.parametrize("trace", [False, True], ids=["fast", "traced"])
def test_plain_keys_skip_the_evaluator_even_when_the_chat_hash_is_zero(
    monkeypatch: pytest.MonkeyPatch, *, trace: bool
) -> None:
    from worldinfo.macros import substituter

    calls: list[object] = []
    real = substituter.evaluate  # type: ignore[attr-defined]  # the module-level name the test patches

    def counting(value: object, **kw: object) -> object:
        calls.append(value)
        return real(value, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(substituter, "evaluate", counting)
    entries = [Entry.new(i, key=[f"plain{i}", "tower"], content=f"c{i}") for i in range(20)]
    session = Session(
        books={"w": Book(name="w", entries=tuple(entries))},
        global_books=["w"],
        chat=[Message(name="Ann", mes="the tower", is_user=True)],  # no chat id: hash 0
        macro_context=MacroContext(clock=lambda: NOON),
    )
    result = session.generate("normal", trace=trace)
    assert len(result.activated) == 20
    assert session.chat_metadata.get("chat_id_hash") == 0
    # only the priming evaluations run ({{noop}}: they store the hash); keys and contents pass by
    assert calls and [c for c in calls if c != "{{noop}}"] == []


def test_the_variable_write_decision_follows_a_replaced_book() -> None:
    from dataclasses import replace

    from worldinfo.types import Origin

    untrusted = Origin(file="shared.json", format="st-world", container="shared", trusted=False)
    entry = Entry.new(0, key=["tower"], content="{{incvar::n}}")
    session = _session([entry])
    session.generate("normal")
    session.generate("normal")
    assert session.chat_metadata["variables"] == {"n": 2}
    session.books["w"] = Book(name="w", entries=(replace(entry, origin=untrusted),))
    session.generate("normal")
    assert session.chat_metadata["variables"] == {"n": 2}  # no write while it is loaded
    session.books["w"] = Book(name="w", entries=(entry,))
    session.generate("normal")
    assert session.chat_metadata["variables"] == {"n": 3}
