"""Start-up: what ``import worldinfo``, ``worldinfo --help`` and a plain scan load.

Each check runs a fresh interpreter (``sys.modules`` of this test process already holds
everything) and asserts on the modules it imported, never on time; ``bench/startup.py``
measures the time. The lazy paths must give the same objects and texts as the eager ones.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

import worldinfo
import worldinfo.importers
import worldinfo.macros
from worldinfo.cli import build_parser
from worldinfo.cli._commands import COMMANDS

ROOT = Path(__file__).resolve().parent.parent


def _loaded(code: str, tmp_path: Path) -> set[str]:
    """The modules a fresh interpreter holds after running ``code`` (in ``tmp_path``)."""
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def _ours(modules: set[str]) -> set[str]:
    return {m for m in modules if m == "worldinfo" or m.startswith("worldinfo.")}


def test_import_worldinfo_loads_nothing_else(tmp_path: Path) -> None:
    assert _ours(_loaded("import worldinfo", tmp_path)) == {"worldinfo", "worldinfo._lazy"}


def test_every_public_name_is_its_homes_object() -> None:
    import importlib

    for name in worldinfo.__all__:
        home = importlib.import_module(worldinfo._HOMES[name])
        assert getattr(worldinfo, name) is getattr(home, name), name
    assert set(worldinfo.__all__) <= set(dir(worldinfo))
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        _ = worldinfo.nonsense  # type: ignore[attr-defined]


def test_lazy_packages_resolve_every_name() -> None:
    for package in (worldinfo.importers, worldinfo.macros):
        for name in package.__all__:
            assert getattr(package, name) is not None, (package.__name__, name)


def test_importers_load_stays_the_function_after_its_submodule_is_imported() -> None:
    import worldinfo.importers.load

    assert worldinfo.importers.load is sys.modules["worldinfo.importers.load"].load


def test_help_loads_no_engine_importer_or_macro_module(tmp_path: Path) -> None:
    code = (
        "from worldinfo.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    ours = _ours(_loaded(code, tmp_path))
    assert ours == {
        "worldinfo",
        "worldinfo._lazy",
        "worldinfo.cli",
        "worldinfo.cli._commands",
        "worldinfo.cli._conventions",
    }


def test_the_top_level_help_is_the_same_with_or_without_the_modules() -> None:
    full = build_parser().format_help()
    assert build_parser(full=()).format_help() == full
    for name in COMMANDS:
        assert build_parser(full=(name,)).format_help() == full, name


def _outcome(
    parser: argparse.ArgumentParser, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> object:
    """What ``parser.parse_args(argv)`` prints and exits with (or the parsed values)."""
    values: dict[str, object]
    try:
        values = dict(vars(parser.parse_args(argv)))
    except SystemExit as exc:
        values = {"exit": exc.code}
    values.pop("func", None)
    return values, capsys.readouterr()


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_command_first_in_argv_parses_the_same_without_the_other_commands(
    name: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``main`` lists no other command when ``argv`` starts with one: nothing it can print
    then (usage, errors, the command's help) mentions them."""
    book = str(tmp_path / "book.json")
    argvs = [[name], [name, "--help"], [name, "--no-such-option"], [name, book, "--json"]]
    argvs += [[name, book, "surplus", "--limit", "x"], [name, "-h", "--version"]]
    for argv in argvs:
        full = _outcome(build_parser(), argv, capsys)
        alone = _outcome(build_parser(full=(name,), listed=False), argv, capsys)
        assert alone == full, argv


def _subparser(parser: object, name: str) -> object:
    import argparse

    assert isinstance(parser, argparse.ArgumentParser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise AssertionError(name)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_command_registered_alone_has_its_full_help(name: str) -> None:
    alone = _subparser(build_parser(full=(name,)), name).format_help()  # type: ignore[attr-defined]
    assert alone == _subparser(build_parser(), name).format_help()  # type: ignore[attr-defined]


def test_every_command_module_reads_its_help_line_from_the_table() -> None:
    import argparse

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    assert helps == {name: line for name, (_module, line) in COMMANDS.items()}


def test_a_plain_scan_skips_what_it_does_not_need(tmp_path: Path) -> None:
    book = {"entries": {"0": {"uid": 0, "key": ["harbour"], "content": "Fog.", "comment": "fog"}}}
    chat = [{"name": "User", "is_user": True, "mes": "The harbour is quiet."}]
    (tmp_path / "book.json").write_text(json.dumps(book))
    (tmp_path / "chat.json").write_text(json.dumps(chat))
    code = (
        "import contextlib, io\nfrom worldinfo.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    assert main(['scan', 'book.json', '--chat', 'chat.json']) == 0\n"
        "assert 'Activated 1 entry' in out.getvalue()"
    )
    loaded = _loaded(code, tmp_path)
    skipped = {
        "jsonschema",
        "sqlite3",
        "zipfile",
        "worldinfo.importers.export",
        "worldinfo.macros.moment",
        "worldinfo.sources.memory_open",
        "worldinfo.cli.lint",
        "worldinfo.cli.memory",
    }
    assert loaded & skipped == set()
    assert "worldinfo.engine.loop" in loaded  # the probe did scan


def test_an_invalid_book_still_gets_jsonschemas_problems(tmp_path: Path) -> None:
    from worldinfo.importers import LorebookImportError, load

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"entries": {"0": {"uid": 0, "key": "x", "content": 5}}}))
    with pytest.raises(LorebookImportError, match=r"\$\.entries\.0\.content"):
        load(bad)


def test_a_scan_of_the_bundled_example_skips_what_it_does_not_need(tmp_path: Path) -> None:
    """The README's example (an ``i`` regex key, no time macro, no retriever) imports none of
    these; each was imported at start-up once (bench/startup.py measures the time)."""
    book = ROOT / "worldinfo" / "examples" / "emberfall.json"
    text = "The ferry docks at Emberfall. Is the Ashen Guild still selling maps?"
    chat = [{"name": "User", "is_user": True, "mes": text}]
    (tmp_path / "chat.json").write_text(json.dumps(chat))
    code = (
        "import contextlib, io\nfrom worldinfo.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    assert main(['scan', {str(book)!r}, '--chat', 'chat.json']) == 0\n"
        "assert 'Activated 3 entries' in out.getvalue()"
    )
    loaded = _loaded(code, tmp_path)
    skipped = {
        "zoneinfo",  # the local zone is read on a time macro's first use (cli._clock)
        "importlib.resources",  # the case-fold table is read through the loader
        "zipfile",
        "fractions",  # the retriever's settings: only with --memory
        "decimal",
        "jsonschema",
        "sqlite3",
        "tempfile",
        "worldinfo.sources.retriever_settings",
        "worldinfo.macros.moment",
        "worldinfo.lint",
        "worldinfo.importers.export",
        "dataclasses",  # worldinfo._record makes the value classes itself
        "inspect",
        "worldinfo.importers.convert",  # a world file needs no converter
        "base64",  # PNG cards only (importers.containers)
        "logging",  # imported on a first log message (_lazy.lazy_logger)
        "shutil",  # argparse reads the terminal's width only to print help (cli._conventions)
        "bz2",
        "lzma",
        "regex",  # its one key cannot match this text: compiled on a first test (_js.regex.sure)
        "pathlib",  # and urllib.parse, ipaddress: importers.load reads plain paths with os
        "random",  # the session's generators are made on a first draw (_lazy.system_random)
        "threading",  # cli.main lets signal.signal say whether it runs in the main thread
        "typing",  # run-time stand-ins from worldinfo._lazy; ActivationSource on first use
        "worldinfo.importers.png",  # a PNG or CHARX card only (importers.detect.sniff)
        "worldinfo.importers.containers",
        "struct",
    }
    assert loaded & skipped == set()
    assert {"worldinfo.engine.loop", "worldinfo._js.regex.fold"} <= loaded  # it did scan


def test_the_sniffed_signatures_are_the_readers_own() -> None:
    """``importers.detect`` knows PNG and ZIP by their first bytes without importing the
    readers that define them (start-up time): the copies must stay the same bytes."""
    from worldinfo.importers import containers, detect, png

    assert detect._PNG == png.SIGNATURE
    assert detect._ZIP == containers.ZIP_MAGIC


@pytest.mark.parametrize("columns", ["20", "80", "200"])
def test_the_fixed_width_check_formatter_changes_no_help_or_prog(
    columns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Parser`` gives ``add_argument``/``add_subparsers`` a fixed-width formatter (no
    ``shutil``): every prog and help text is what the terminal's width gives."""
    import argparse

    from worldinfo.cli import _conventions

    class Plain(_conventions.Parser):
        """``Parser`` with argparse's own formatter everywhere."""

        def _get_formatter(self) -> argparse.HelpFormatter:
            return argparse.ArgumentParser._get_formatter(self)

    monkeypatch.setenv("COLUMNS", columns)
    ours = build_parser()
    monkeypatch.setattr(_conventions, "Parser", Plain)
    from worldinfo import cli

    monkeypatch.setattr(cli, "Parser", Plain)
    theirs = build_parser()
    assert ours.format_help() == theirs.format_help()
    for name in COMMANDS:
        mine, plain = _subparser(ours, name), _subparser(theirs, name)
        assert mine.prog == plain.prog, name  # type: ignore[attr-defined]
        assert mine.format_help() == plain.format_help(), name  # type: ignore[attr-defined]


def test_a_lazy_logger_is_its_modules_logger(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from worldinfo._lazy import lazy_logger

    log = lazy_logger("worldinfo.startup_probe")
    with caplog.at_level(logging.DEBUG, logger="worldinfo.startup_probe"):
        log.debug("key %s", "x")
        assert log.isEnabledFor(logging.DEBUG)
    assert log.name == "worldinfo.startup_probe"
    records = [(r.name, r.levelname, r.getMessage(), r.funcName) for r in caplog.records]
    assert records == [
        ("worldinfo.startup_probe", "DEBUG", "key x", "test_a_lazy_logger_is_its_modules_logger")
    ]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab./\\ ", max_size=12))
def test_a_path_is_labelled_and_named_as_pathlib_does(text: str) -> None:
    """``importers.load`` skips ``pathlib`` for paths it leaves as written: same label,
    name and stem as ``Path`` gives for every path."""
    from pathlib import Path, PurePath

    from worldinfo.importers.paths import path_text, stem

    assert path_text(text) == (str(Path(text)), Path(text).name)
    assert stem(text) == PurePath(text).stem


def test_the_schema_folder_is_schema_dir() -> None:
    from worldinfo.importers import schema

    assert schema.schema_dir() == Path(schema._schema_folder()).resolve()
    assert (schema.schema_dir() / "st-world.schema.json").is_file()


def test_a_system_random_draws_from_its_own_generator() -> None:
    from worldinfo._lazy import system_random

    a, b = system_random(), system_random()
    draws = [a() for _ in range(50)] + [b() for _ in range(50)]
    assert all(0.0 <= d < 1.0 for d in draws) and len(set(draws)) == 100


def test_main_runs_in_a_thread_and_leaves_sigterm_alone(tmp_path: Path) -> None:
    """Only the main thread installs the SIGTERM handler (``signal`` refuses the others)."""
    import contextlib
    import io
    import signal
    import threading

    from worldinfo.cli import main

    book = ROOT / "worldinfo" / "examples" / "emberfall.json"
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"name": "User", "is_user": True, "mes": "Emberfall."}]))
    before = signal.getsignal(signal.SIGTERM)
    codes: list[int] = []
    with contextlib.redirect_stdout(io.StringIO()):
        worker = threading.Thread(
            target=lambda: codes.append(main(["scan", str(book), "--chat", str(chat)]))
        )
        worker.start()
        worker.join()
        codes.append(main(["scan", str(book), "--chat", str(chat)]))
    assert codes == [0, 0]
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_typing_stand_ins_do_what_typing_does_here() -> None:
    """``worldinfo._lazy``'s ``NamedTuple``, ``Generic``, ``cast`` and ``overload`` behave as
    ``typing``'s for the uses of the scan path's modules (which import them off the scan)."""
    import typing

    from worldinfo import _lazy

    def body(base: type) -> type:
        class Pair(base):  # type: ignore[misc]
            """Two values."""

            left: int
            right: str = "r"

            def both(self) -> str:
                return f"{self.left}{self.right}"

        return Pair

    ours, theirs = body(_lazy.NamedTuple), body(typing.NamedTuple)
    for made in (ours, theirs):
        made.__module__ = __name__
    a, b = ours(1), theirs(1)
    assert (tuple(a), repr(a), a.both(), a._fields, a._replace(left=2)) == (
        tuple(b),
        repr(b),
        b.both(),
        b._fields,
        b._replace(left=2),
    )
    assert ours.__doc__ == theirs.__doc__ and list(ours.__annotations__) == ["left", "right"]
    assert isinstance(a, tuple) and ours(left=3, right="x") == (3, "x")

    class Box(_lazy.Generic[_lazy.TypeVar("V")]):  # type: ignore[misc]
        __slots__ = ("v",)

    assert Box[int] is Box and not hasattr(Box(), "__dict__")  # type: ignore[misc]
    sentinel = object()
    assert _lazy.cast("int", sentinel) is sentinel
    assert _lazy.overload(test_startup_probe := len) is test_startup_probe
