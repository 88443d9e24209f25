"""The trust policy: untrusted entries are held to it at scan time, after macro substitution,
on both scan paths, through check(), Session, the importers, export and the CLI."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from worldinfo import (
    Book,
    BookSelection,
    Character,
    Entry,
    Message,
    Origin,
    Session,
    Settings,
    TrustPolicy,
    check,
    importers,
)
from worldinfo.cli import main
from worldinfo.engine.fast.cache import ScanCache
from worldinfo.importers.export import character_book, world_json
from worldinfo.macros import Macros
from worldinfo.result import ScanResult
from worldinfo.trust import DEFAULT_TRUST, ORIGIN_FIELD, key_refusal

UNTRUSTED = Origin(file="shared.json", format="st-world", container="shared", trusted=False)
CHAT = ["Bob: hello there... the weather is nice today"]


def book(*entries: Mapping[str, Any], trusted: bool, name: str = "shared") -> Book:
    origin = None if trusted else UNTRUSTED
    return Book(
        name=name,
        entries=tuple(
            dataclasses.replace(Entry.new(i, **fields), origin=origin)
            for i, fields in enumerate(entries)
        ),
    )


def scan(
    b: Book,
    *,
    fast: bool,
    char: str = "",
    chat: list[str] = CHAT,
    trust: TrustPolicy = DEFAULT_TRUST,
) -> ScanResult:
    return check(
        {b.name: b},
        chat,
        selection=BookSelection(global_names=(b.name,)),
        settings=Settings(),
        max_context=8192,
        rng=lambda: 0.5,
        substitute=Macros(user="Bob", char=char),
        cache=ScanCache() if fast else None,
        trust=trust,
    )


def uids(result: ScanResult) -> list[Any]:
    return [e["uid"] for e in result.activated]


PATHS = pytest.mark.parametrize("fast", [False, True], ids=["straightforward", "fast"])


@PATHS
@pytest.mark.parametrize(
    ("key", "char"),
    [
        ("{{char}}/[^]*/", ""),  # looks plain when stored, a regex once substituted
        ("{{char}}/", "/[^]*"),  # the card's name supplies the pattern
        ("{{char}}/(a+)+$/", ""),  # a catastrophic pattern the same way
    ],
    ids=["key-macro", "name-macro", "catastrophic"],
)
def test_macro_cannot_turn_an_untrusted_key_into_a_regex(key: str, char: str, fast: bool) -> None:
    entry = {"key": [key], "content": "INJECTED"}
    chat = ["Bob: hello " + "a" * 40 + "!"]
    trusted = scan(book(entry, trusted=True), fast=fast, char=char, chat=chat)
    assert uids(trusted) == ([0] if "[^]" in key + char else [])  # it is a regex for SillyTavern
    untrusted = scan(book(entry, trusted=False), fast=fast, char=char, chat=chat)
    assert uids(untrusted) == []
    assert any("regex key refused" in w for w in untrusted.warnings)
    assert not any("timed out" in w for w in untrusted.warnings)  # never compiled or run


@PATHS
@pytest.mark.parametrize(
    "fields",
    [
        {"key": ["zzz"], "constant": True},
        {"key": ["zzz"], "content": "@@activate\nINJECTED"},
        {"key": ["zzz"], "content": "@@note\n@@@activate\nINJECTED"},
        {"key": [" "]},  # blank once trimmed: matches every text (R25)
        {"key": ["e"]},
        {"key": ["..."]},
        {"key": ["{{char}} "]},  # blank once substituted (no character)
        {"key": ["{{user}}", "zzz"], "keysecondary": ["{{char}} "], "selectiveLogic": 3},
    ],
    ids=[
        "constant",
        "activate",
        "activate-fallback",
        "blank",
        "one-char",
        "no-letter",
        "macro-empty",
        "macro-secondary",
    ],
)
def test_untrusted_entry_cannot_force_itself_in(fields: dict[str, Any], fast: bool) -> None:
    fields = {"content": "INJECTED", **fields}
    trusted = scan(book(fields, trusted=True), fast=fast, char="")
    untrusted = scan(book(fields, trusted=False), fast=fast, char="")
    assert uids(untrusted) == []
    assert uids(trusted) == [0]


@PATHS
def test_plain_untrusted_keys_still_match(fast: bool) -> None:
    b = book({"key": ["weather"]}, {"key": ["zz", "nice"]}, {"key": ["snow"]}, trusted=False)
    assert uids(scan(b, fast=fast)) == [0, 1]


@PATHS
@pytest.mark.parametrize(
    ("policy", "fields"),
    [
        (TrustPolicy(allow_regex_keys=True), {"key": ["{{char}}/weath?er/"]}),
        (TrustPolicy(allow_constant=True), {"key": ["zzz"], "constant": True}),
        (TrustPolicy(allow_activate_decorator=True), {"key": ["zzz"], "content": "@@activate\nX"}),
        (TrustPolicy(allow_broad_keys=True), {"key": ["e"]}),
        (TrustPolicy(min_key_length=1), {"key": ["e"]}),
    ],
    ids=["regex", "constant", "activate", "broad", "min-length"],
)
def test_each_power_is_switchable(policy: TrustPolicy, fields: dict[str, Any], fast: bool) -> None:
    b = book({"content": "X", **fields}, trusted=False)
    assert uids(scan(b, fast=fast)) == []
    assert uids(scan(b, fast=fast, trust=policy)) == [0]


@PATHS
def test_system_role_at_depth_zero_becomes_user(fast: bool) -> None:
    fields = {"key": ["weather"], "content": "X", "position": 4, "depth": 0, "role": 0}
    assert [g.role for g in scan(book(fields, trusted=True), fast=fast).depth] == [0]
    assert [g.role for g in scan(book(fields, trusted=False), fast=fast).depth] == [1]
    deeper = {**fields, "depth": 2}
    assert [g.role for g in scan(book(deeper, trusted=False), fast=fast).depth] == [0]
    policy = TrustPolicy(allow_system_at_depth_zero=True)
    assert [g.role for g in scan(book(fields, trusted=False), fast=fast, trust=policy).depth] == [0]


@PATHS
def test_untrusted_ignore_budget_is_held_to_the_budget(fast: bool) -> None:
    filler = {"key": ["weather"], "content": "word " * 200, "order": 200}
    late = {"key": ["nice"], "content": "LATE", "ignoreBudget": True, "order": 100}

    def run(trusted: bool) -> list[Any]:
        b = book(filler, late, trusted=trusted)
        result = check(
            {b.name: b},
            CHAT,
            selection=BookSelection(global_names=(b.name,)),
            settings=Settings(budget=1),
            max_context=8192,
            rng=lambda: 0.5,
            cache=ScanCache() if fast else None,
        )
        return uids(result)

    assert run(trusted=True) == [1]  # the filler overflows the budget; LATE ignores it
    assert run(trusted=False) == []


def test_untrusted_sticky_does_not_keep_the_entry_on() -> None:
    def active(trusted: bool) -> list[list[Any]]:
        b = book({"key": ["weather"], "content": "X", "sticky": 5}, trusted=trusted)
        s = Session(books={b.name: b}, global_books=[b.name], settings=Settings(depth=1))
        first = s.generate(append=[Message(name="Bob", mes="the weather", is_user=True)])
        later = s.generate(append=[Message(name="Ann", mes="something else")])
        return [uids(first), uids(later)]

    assert active(trusted=True) == [[0], [0]]
    assert active(trusted=False) == [[0], []]


def test_session_applies_its_policy() -> None:
    b = book({"key": ["{{char}}/weath?er/"], "content": "X"}, trusted=False)
    chat = [Message(name="Bob", mes="the weather", is_user=True)]
    default = Session(books={b.name: b}, global_books=[b.name], chat=chat)
    assert uids(default.generate()) == []
    allowing = Session(
        books={b.name: b},
        global_books=[b.name],
        chat=chat,
        trust=TrustPolicy(allow_regex_keys=True),
    )
    assert uids(allowing.generate()) == [0]


def test_fast_and_straightforward_paths_agree_on_a_mixed_book() -> None:
    keys = ["weather", "{{char}}/we.ther/", " ", "e", "/nice/", "{{user}}", "zz", "{{char}}"]
    fields = [{"key": [k], "content": f"c{i}", "order": i} for i, k in enumerate(keys)]
    fields += [{"key": ["zz"], "keysecondary": [k], "content": "s"} for k in keys]
    for trusted in (True, False):
        b = book(*fields, trusted=trusted)
        slow, fast = scan(b, fast=False), scan(b, fast=True)
        assert uids(slow) == uids(fast)
        assert slow.warnings == fast.warnings


def test_key_refusal_is_decided_on_the_trimmed_text() -> None:
    policy = TrustPolicy()
    assert key_refusal("  /x/i ", policy) == "regex key"
    assert key_refusal(" \t", policy) == "matches almost any text"
    assert key_refusal("Al", policy) is None
    assert key_refusal("猫猫", policy) is None


def _world(entries: list[dict[str, Any]]) -> bytes:
    return json.dumps(
        {"entries": {str(i): {"uid": i, **e} for i, e in enumerate(entries)}}
    ).encode()


def test_importer_rewrites_under_the_same_policy() -> None:
    raw = _world([{"key": ["/a/", "ok", "x"], "sticky": 3, "ignoreBudget": True, "content": "c"}])
    entry = (importers.load(raw, name="w.json", trust=False).books[0].entries or ())[0]
    assert entry.data["key"] == ["ok"] and entry.data["sticky"] is None
    assert entry.data["ignoreBudget"] is False
    relaxed = TrustPolicy(allow_regex_keys=True, allow_sticky=True)
    entry = (
        importers.load(raw, name="w.json", trust=False, policy=relaxed).books[0].entries or ()
    )[0]
    assert entry.data["key"] == ["/a/", "ok"] and entry.data["sticky"] == 3


@pytest.mark.parametrize("to", ["world", "card-book"])
def test_provenance_survives_export_and_reimport(to: str) -> None:
    raw = _world([{"key": ["weather"], "content": "c"}])
    imported = importers.load(raw, name="w.json", trust=False).books[0]
    if to == "world":
        again = json.dumps(world_json(imported)).encode()
    else:
        card = {
            "spec": "chara_card_v2",
            "spec_version": "2.0",
            "data": {"name": "C", "character_book": character_book(imported)},
        }
        again = json.dumps(card).encode()
    name = "w.json" if to == "world" else "c.json"
    back = importers.load(again, name=name).books[0]  # loaded as trusted
    entry = (back.entries or ())[0]
    assert entry.origin is not None and entry.origin.trusted is False
    ext = entry.data["extensions"]
    assert isinstance(ext, dict) and ext[ORIGIN_FIELD]["trusted"] is False


def test_engine_reads_the_mark_without_the_importers() -> None:
    fields = {"key": ["zzz"], "constant": True, "content": "X"}
    marked = {**fields, "extensions": {ORIGIN_FIELD: {"trusted": False}}}
    plain = Book.from_json("b", {"entries": {"0": {"uid": 0, **fields}}})
    stored = Book.from_json("b", {"entries": {"0": {"uid": 0, **marked}}})
    assert uids(scan(plain, fast=False)) == [0]
    assert uids(scan(stored, fast=False)) == uids(scan(stored, fast=True)) == []


def test_cli_untrusted_scan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = tmp_path / "shared.json"
    world.write_text(
        json.dumps({"entries": {"0": {"uid": 0, "key": ["{{char}}/[^]*/"], "content": "PWNED"}}})
    )
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(["hello"]))
    assert main(["scan", str(world), "--chat", str(chat)]) == 0
    assert "Activated 1 entry" in capsys.readouterr().out
    assert main(["scan", str(world), "--chat", str(chat), "--untrusted"]) == 0
    out = capsys.readouterr().out
    assert "Activated 0 entries" in out and "regex key refused" in out


def test_character_name_reaches_the_check() -> None:
    """A Session's card name is what ``{{char}}`` becomes in a key (the name-macro bypass)."""
    b = book({"key": ["{{char}}/"], "content": "X"}, trusted=False)
    character = Character(name="/[^]*", book=b.name)
    s = Session(books={b.name: b}, character=character, chat=[Message(name="U", mes="hi")])
    result = s.generate()
    assert uids(result) == [] and any("regex key refused" in w for w in result.warnings)


def test_whether_a_book_is_untrusted_is_decided_once_and_stays_right() -> None:
    trusted = Book.from_json("T", {"entries": {"0": {"uid": 0, "key": ["a"]}}})
    untrusted = Book.from_json(
        "U", {"entries": {"0": {"uid": 0, "key": ["a"]}}}, origin=Origin(trusted=False)
    )
    for _ in range(2):  # the second round reads the answers kept on the books
        assert DEFAULT_TRUST.macro_writes([trusted])
        assert not DEFAULT_TRUST.macro_writes([trusted, untrusted])
        assert not DEFAULT_TRUST.macro_writes([None, untrusted])
    assert trusted.derived == {"has_untrusted": False}
    assert untrusted.derived == {"has_untrusted": True}
    assert trusted == Book.from_json("T", {"entries": {"0": {"uid": 0, "key": ["a"]}}})
    assert dataclasses.replace(DEFAULT_TRUST, allow_variable_writes=True).macro_writes([untrusted])
