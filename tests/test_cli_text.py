"""The CLI's user-facing text: every option says what it does and its default, in one form;
errors name the file and stay one line."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from worldinfo.cli import build_parser, main
from worldinfo.examples import path as example


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found.extend(_parsers(sub))
    return found


def _options() -> list[tuple[str, str]]:
    return [
        (f"{p.prog} {a.option_strings[-1]}", a.help or "")
        for p in _parsers(build_parser())
        for a in p._actions
        if a.option_strings and not isinstance(a, argparse._HelpAction | argparse._VersionAction)
    ]


def test_every_option_says_what_it_does() -> None:
    """A help text that is only ``(default: ...)`` tells a user nothing about the option."""
    bare = [name for name, text in _options() if not text or text.startswith("(")]
    assert bare == []


def test_defaults_are_written_one_way() -> None:
    """``(default: X)`` everywhere: not ``(default X)``, not an empty ``(default: )``."""
    odd = [
        name
        for name, text in _options()
        if re.search(r"\(default [^:]|default: \)", " ".join(text.split()))
    ]
    assert odd == []


def test_every_command_has_a_description_or_its_own_help() -> None:
    undescribed = [p.prog for p in _parsers(build_parser())[1:] if not p.description]
    # memory's actions are one-liners whose sub-command help says it all
    assert [p for p in undescribed if not p.startswith("worldinfo memory")] == []


def test_lint_switch_defaults_are_the_settings_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["lint", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "senders' names (default: true, or the --settings file's)" in out
    assert "more keys (default: false, or the --settings file's)" in out


CHAT_SAID = "not a lorebook or card; import converts books and cards: a chat goes to scan --chat"


@pytest.mark.parametrize(
    ("chat", "what"),
    [
        ("memory-chat.jsonl", "SillyTavern .jsonl"),
        ("emberfall-chat.json", "a JSON list of 4 messages"),  # what scan --chat reads
    ],
)
def test_import_of_a_chat_says_what_import_is_for(
    chat: str, what: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(example(chat))
    assert main(["import", path]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"worldinfo import: {path}: a chat ({what}), {CHAT_SAID} (or ")
    assert err.count("\n") == 1 and "$" not in err  # one line, no schema problem list
    assert main(["scan", str(example("emberfall.json")), "--chat", path]) == 0  # as it says
    capsys.readouterr()


@pytest.mark.parametrize("to", ["st-world", "card-v2"])
def test_import_of_a_chat_from_stdin_or_as_a_card(
    to: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    stdin = io.TextIOWrapper(io.BytesIO(b'["hello", "hi"]'))
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["import", "-", "--to", to]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("worldinfo import: -: a chat (TavernAI, a list of strings), ")
    assert captured.out == ""


def test_a_list_of_other_objects_is_still_a_schema_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "list.json"
    path.write_text('[{"key": ["a"], "content": "b"}]', encoding="utf-8")
    assert main(["import", str(path)]) == 1
    err = capsys.readouterr().err
    assert "cannot import as json:" in err and "a chat" not in err


@pytest.fixture
def store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    db = str(tmp_path / "memory.db")
    assert main(["memory", "ingest", str(example("emberfall-history.jsonl")), "--db", db]) == 0
    capsys.readouterr()
    return db


def test_memory_query_book_takes_any_importable_format(
    store: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PNG card's book gives lore keys as a world file would (it used to fail on UTF-8)."""
    world = tmp_path / "spice.json"
    world.write_text(json.dumps({"entries": {"0": {"uid": 0, "key": ["cinnamon"]}}}))
    card = tmp_path / "spice.png"
    assert main(["import", str(world), "--to", "card-v3", "-o", str(card)]) == 0
    args = ["memory", "query", "--db", store, "--json"]
    question = "Which ship carried the cinnamon?"
    assert main([*args, question]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*args, "--book", str(card), question]) == 0
    with_card = json.loads(capsys.readouterr().out)
    assert [k["word"] for k in plain["keywords"] if k["lore"]] == []
    assert [k["word"] for k in with_card["keywords"] if k["lore"]] == ["cinnamon"]


@pytest.mark.parametrize("name", ["missing.json", "notes.txt"])
def test_memory_query_bad_book_is_one_line_naming_it(
    name: str, store: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = tmp_path / name
    if name == "notes.txt":
        book.write_text("not a book", encoding="utf-8")
    assert main(["memory", "query", "--db", store, "--book", str(book), "hi"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("worldinfo memory: ") and str(book) in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("command", ["scan", "explain", "replay"])
@pytest.mark.parametrize("clock", [["--tz", "No/Such_Zone"], ["--now", "noon-ish"]])
def test_a_bad_clock_is_a_usage_error_everywhere(
    command: str, clock: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``macros`` already exits 2 on a bad --tz/--now; the scanning commands did exit 1."""
    args = [command, str(example("emberfall.json")), "--chat", str(example("emberfall-chat.json"))]
    assert main([*args, *clock]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"worldinfo {command}: {clock[0]} {clock[1]}: ")


def test_golden_names_a_missing_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope"
    assert main(["golden", str(missing)]) == 1  # it was a FileNotFoundError traceback
    err = capsys.readouterr().err
    assert err == f"worldinfo golden: {missing}: cannot read: No such file or directory\n"


def test_a_folder_without_test_files_does_not_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``worldinfo test FOLDER`` in CI must not report success when it found nothing to run."""
    assert main(["test", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"ERROR {tmp_path}: no *.witest.json file in this folder" in out
    assert out.endswith("0 passed, 0 failed, 1 file(s) with errors\n")
