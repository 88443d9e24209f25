"""The conventions every command follows: ``-`` is stdin/stdout, ``--json`` everywhere with
its documented shape, every option's help shows its default, disabled imports are counted."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

import pytest
from shared import corpus_file

from worldinfo.cli import build_parser, main
from worldinfo.examples import path as example

BOOK, CHAT = example("emberfall.json"), example("emberfall-chat.json")
DATA = Path(__file__).parent / "data"


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    class Stdin(io.TextIOWrapper):
        pass

    monkeypatch.setattr("sys.stdin", Stdin(io.BytesIO(data)))


def _json_out(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out)


def test_scan_reads_book_chat_or_settings_from_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, want = _json_out(capsys, "scan", str(BOOK), "--chat", str(CHAT), "--seed", "7", "--json")
    _stdin(monkeypatch, BOOK.read_bytes())
    assert _json_out(capsys, "scan", "-", "--chat", str(CHAT), "--seed", "7", "--json")[1][
        "activated"
    ] == [dict(a, world="<stdin>") for a in want["activated"]]
    _stdin(monkeypatch, CHAT.read_bytes())
    assert _json_out(capsys, "scan", str(BOOK), "--chat", "-", "--seed", "7", "--json")[1] == want
    _stdin(monkeypatch, b'{"world_info_settings": {"world_info_depth": 2}}')
    got = _json_out(
        capsys, "scan", str(BOOK), "--chat", str(CHAT), "--settings", "-", "--seed", "7", "--json"
    )
    assert got[1] == want


def test_stdin_once_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "-", "--chat", "-"]) == 2
    assert "'-' (stdin) can be given for one input only" in capsys.readouterr().err


def test_validate_lint_import_read_stdin(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    raw = BOOK.read_bytes()
    _stdin(monkeypatch, raw)
    assert main(["validate", "-"]) == 0
    assert capsysbinary.readouterr().out.startswith(b"ok   <stdin> (st-world, 1 book(s), 10 ")
    _stdin(monkeypatch, raw)
    assert main(["lint", "-"]) in (0, 1)
    capsysbinary.readouterr()
    _stdin(monkeypatch, raw)
    assert main(["import", "-", "-o", "-"]) == 0
    assert json.loads(capsysbinary.readouterr().out)["entries"]["0"]["comment"] == "Emberfall"


def test_test_and_golden_read_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = json.loads((DATA / "eldoria.witest.json").read_text(encoding="utf-8"))
    suite["books"] = [str(DATA / "eldoria" / b) for b in ("Eldoria.json",)]
    _stdin(monkeypatch, json.dumps(suite).encode())
    code, data = _json_out(capsys, "test", "-", "--json")
    assert code == 0 and data["failed"] == 0 and data["passed"] == len(suite["cases"])
    golden = Path(__file__).resolve().parent.parent / "golden" / "st" / "feat-sticky.json"
    _stdin(monkeypatch, golden.read_bytes())
    code, data = _json_out(capsys, "golden", "-", "--json")
    assert code == 0 and data["failed"] == 0 and data["passed"] == len(data["cases"]) > 0


def test_json_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    """The shapes README's "CLI conventions" documents."""
    code, scan = _json_out(capsys, "scan", str(BOOK), "--chat", str(CHAT), "--seed", "7", "--json")
    assert code == 0 and {"activated", "activated_entries", "chat_metadata"} <= set(scan)
    code, explain = _json_out(
        capsys, "explain", str(BOOK), "--chat", str(CHAT), "--seed", "7", "--json"
    )
    assert code == 0 and {"activated", "scan_loops"} <= set(explain)
    assert _json_out(
        capsys, "explain", str(BOOK), "--chat", str(CHAT), "--seed", "7", "--format", "json"
    ) == (
        0,
        explain,
    )
    code, found = _json_out(capsys, "lint", str(DATA / "eldoria" / "Eldoria.json"), "--json")
    assert code == 0 and {"file", "code", "severity", "book", "uid", "json_path", "message"} == set(
        found[0]
    )
    code, valid = _json_out(capsys, "validate", str(BOOK), "--json")
    assert code == 0 and valid["ok"] == 1 and valid["with_problems"] == 0
    assert set(valid["files"][0]) == {
        "file",
        "format",
        "ok",
        "books",
        "entries",
        "disabled",
        "warnings",
        "problems",
    }
    code, tests = _json_out(capsys, "test", str(DATA / "eldoria.witest.json"), "--json")
    assert code == 0 and {"cases", "passed", "failed", "broken_files"} == set(tests)
    assert set(tests["cases"][0]) == {"file", "case", "ok", "problem", "activated"}


def _subparsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    out = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out += _subparsers(sub)
    return out


def test_every_option_shows_its_default() -> None:
    missing = []
    for parser in _subparsers(build_parser()):
        for action in parser._actions:
            if not action.option_strings or isinstance(
                action, argparse._HelpAction | argparse._VersionAction
            ):
                continue
            text = (action.help or "").lower()
            if action.option_strings[0].startswith("--no-"):
                ok = text.startswith("turn off") or "default" in text
            else:
                ok = "default" in text or "required" in text
            if not ok:
                missing.append(f"{parser.prog} {action.option_strings[0]}")
    assert missing == []


def test_reporting_commands_all_take_json() -> None:
    names = {p.prog.removeprefix("worldinfo ") for p in _subparsers(build_parser())}
    without = []
    for parser in _subparsers(build_parser()):
        name = parser.prog.removeprefix("worldinfo ")
        if name in {"worldinfo", "demo", "import", "memory", "memory ingest"}:
            continue
        if not any("--json" in a.option_strings for a in parser._actions):
            without.append(name)
    assert "scan" in names and without == []


def test_import_says_how_many_entries_come_in_disabled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = corpus_file("novelai/nai-generated-81-entries.lorebook")
    assert main(["import", str(src), "-o", str(tmp_path / "out.json")]) == 0
    err = capsys.readouterr().err
    assert "80 of 81 entries come in disabled (as SillyTavern imports them)" in err
    assert main(["validate", str(src)]) == 0
    assert "81 entries, 80 disabled" in capsys.readouterr().out
    assert main(["import", str(BOOK), "-o", str(tmp_path / "b.json")]) == 0
    assert "1 of 10 entries come in disabled" in capsys.readouterr().err  # "Unfinished entry"
    assert main(["import", str(DATA / "eldoria" / "Eldoria.json"), "-o", str(tmp_path / "c")]) == 0
    assert "disabled" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["import", "{missing}"],
        ["scan", "{missing}", "--chat", str(CHAT)],
        ["explain", "{missing}", "--chat", str(CHAT)],
        ["replay", "{missing}", "--chat", str(CHAT)],
        ["memory", "query", "--db", "{missing}", "hello"],
        ["golden", "{missing}"],
    ],
)
def test_a_failing_command_names_itself_on_its_first_error_line(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "missing.json")
    code = main([a.replace("{missing}", missing) for a in argv])
    err = capsys.readouterr().err
    assert code != 0
    assert err.startswith(f"worldinfo {argv[0]}: "), err
    assert missing in err.splitlines()[0]
