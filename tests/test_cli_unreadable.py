"""A file that cannot be read is reported alike by every command that reads one: the
command, the path and the OS's reason (``worldinfo CMD: PATH: cannot read: REASON``), never
a format guessed from the file name nor a JSON path into a file that is not there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from worldinfo.cli import main
from worldinfo.examples import path as example

BOOK, CHAT = str(example("emberfall.json")), str(example("emberfall-chat.json"))
MISSING = "No such file or directory"

# command line (MISSING_FILE stands for the path) -> exit status
ERRORS = {
    "import": (["import", "@"], 1),
    "scan book": (["scan", "@", "--chat", CHAT], 1),
    "scan --chat": (["scan", BOOK, "--chat", "@"], 1),
    "scan --settings": (["scan", BOOK, "--chat", CHAT, "--settings", "@"], 2),
    "explain book": (["explain", "@", "--chat", CHAT], 1),
    "explain --chat": (["explain", BOOK, "--chat", "@"], 1),
    "replay book": (["replay", "@", "--chat", CHAT], 1),
    "replay --chat": (["replay", BOOK, "--chat", "@"], 1),
    "lint --chat": (["lint", BOOK, "--chat", "@"], 1),
    "lint --settings": (["lint", BOOK, "--settings", "@"], 2),
    "golden": (["golden", "@"], 1),
    "macros --card": (["macros", "--card", "@", "hi"], 1),
    "macros --chat": (["macros", "--chat", "@", "hi"], 1),
}


def _argv(argv: list[str], path: Path) -> list[str]:
    return [str(path) if a == "@" else a for a in argv]


@pytest.mark.parametrize("case", ERRORS)
def test_one_line_names_command_path_and_reason(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, status = ERRORS[case]
    missing = tmp_path / "no-such.json"
    assert main(_argv(argv, missing)) == status
    out, err = capsys.readouterr()
    assert err == f"worldinfo {argv[0]}: {missing}: cannot read: {MISSING}\n"
    assert out == ""


@pytest.mark.parametrize("name", ["no-such.json", "no-such.jsonl"])
def test_memory_ingest(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / name
    assert main(["memory", "ingest", "--db", str(tmp_path / "m.db"), str(missing)]) == 1
    assert capsys.readouterr().err == f"worldinfo memory: {missing}: cannot read: {MISSING}\n"


def test_a_folder_is_not_read_as_a_book(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", str(tmp_path)]) == 1
    assert capsys.readouterr().err == f"worldinfo import: {tmp_path}: cannot read: Is a directory\n"


def test_validate_lists_the_unreadable_file_with_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such.lorebook"  # the name suggests a format: none is named
    assert main(["validate", str(missing), BOOK]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"FAIL {missing}: cannot read: {MISSING}"
    assert out[1].startswith(f"ok   {BOOK} (st-world")
    assert main(["validate", "--json", str(missing)]) == 1
    (record,) = json.loads(capsys.readouterr().out)["files"]
    assert (record["format"], record["ok"]) == (None, False)
    assert record["problems"] == [{"json_path": "$", "message": f"cannot read: {MISSING}"}]


def test_lint_reports_the_unreadable_file_as_a_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such.json"
    assert main(["lint", str(missing), BOOK]) == 1
    out = capsys.readouterr().out.splitlines()
    assert f"{missing}: $: WI000 error: cannot read: {MISSING}" in out
    assert not any("cannot import as" in line for line in out)


def test_test_lists_the_unreadable_file_like_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such.witest.json"
    assert main(["test", str(missing)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"ERROR {missing}: cannot read: {MISSING}"
