"""``--settings`` and the setting flags: our names and SillyTavern's, nothing silently ignored."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from worldinfo.cli import main
from worldinfo.cli._scan_options import settings_from
from worldinfo.examples import path as example
from worldinfo.types import Settings

BOOK, CHAT = str(example("emberfall.json")), str(example("emberfall-chat.json"))
ELDORIA = str(Path(__file__).parent / "data" / "eldoria" / "Eldoria.json")

# SillyTavern's settings.json stores the World Info settings like this (every key of it).
ST_WORLD_INFO_SETTINGS = {
    "world_info": {"globalSelect": ["emberfall"]},
    "world_info_depth": 3,
    "world_info_min_activations": 2,
    "world_info_min_activations_depth_max": 10,
    "world_info_budget": 40,
    "world_info_include_names": False,
    "world_info_recursive": True,
    "world_info_overflow_alert": True,
    "world_info_case_sensitive": True,
    "world_info_match_whole_words": True,
    "world_info_character_strategy": 2,
    "world_info_budget_cap": 500,
    "world_info_use_group_scoring": True,
    "world_info_max_recursion_steps": 3,
}
EXPECTED = Settings(
    depth=3,
    min_activations=2,
    min_activations_depth_max=10,
    budget=40,
    include_names=False,
    recursive=True,
    overflow_alert=True,
    case_sensitive=True,
    match_whole_words=True,
    character_strategy=2,
    budget_cap=500,
    use_group_scoring=True,
    max_recursion_steps=3,
)


def _file(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def _settings(tmp_path: Path, data: Any) -> Settings:
    return settings_from(argparse.Namespace(settings=_file(tmp_path, data)))


@pytest.mark.parametrize(
    "shape",
    ["flat", "wrapper", "whole settings.json"],
)
def test_sillytavern_settings_in_every_shape(tmp_path: Path, shape: str) -> None:
    data: dict[str, Any] = dict(ST_WORLD_INFO_SETTINGS)
    if shape != "flat":
        data = {"world_info_settings": data}
    if shape == "whole settings.json":
        data |= {"main_api": "openai", "power_user": {"theme": "Dark"}, "firstRun": False}
    assert _settings(tmp_path, data) == EXPECTED


def test_our_names_equal_sillytavern_names(tmp_path: Path) -> None:
    ours = {k.removeprefix("world_info_"): v for k, v in ST_WORLD_INFO_SETTINGS.items()}
    del ours["world_info"]
    assert _settings(tmp_path, ours) == EXPECTED


def test_world_info_depth_changes_the_scan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def activated(*extra: str) -> list[int]:
        assert main(["scan", BOOK, "--chat", CHAT, "--seed", "7", "--json", *extra]) == 0
        return [a["uid"] for a in json.loads(capsys.readouterr().out)["activated"]]

    default = activated()
    st_name = activated("--settings", _file(tmp_path, {"world_info_depth": 0}))
    assert st_name != default
    assert activated("--settings", _file(tmp_path, {"depth": 0})) == st_name


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"dpeth": 0}, ["'dpeth'", "depth", "world_info_depth"]),
        ({"world_info_settings": {"world_info_dpeth": 0}}, ["world_info_dpeth", "valid:"]),
        ({"world_info_recursive": "yes"}, ["world_info_recursive", "true or false"]),
        ({"depth": 2.5}, ["depth", "whole number"]),
        ({"budget": 150}, ["budget", "0..100"]),
        ({"character_strategy": 7}, ["character_strategy", "0 or 1 or 2"]),
        ({"depth": 2, "world_info_depth": 3}, ["given twice"]),
        ([1, 2], ["expected a JSON object"]),
    ],
)
def test_bad_settings_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Any, named: list[str]
) -> None:
    assert main(["scan", BOOK, "--chat", CHAT, "--settings", _file(tmp_path, data)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("worldinfo scan: ") and "settings.json" in err
    for word in named:
        assert word in err


@pytest.mark.parametrize(
    "flags",
    [
        ["--type", "bogus"],
        ["--character-strategy", "7"],
        ["--depth", "-3"],
        ["--depth", "x"],
        ["--budget", "101"],
        ["--max-context", "-1"],
        ["--seed", "-1"],
    ],
)
def test_bad_flags_are_refused(flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["scan", BOOK, "--chat", CHAT, *flags])
    assert info.value.code == 2
    assert flags[0] in capsys.readouterr().err


def test_character_strategy_by_name_or_number(capsys: pytest.CaptureFixture[str]) -> None:
    for value in ("global_first", "2"):
        assert main(["scan", BOOK, "--chat", CHAT, "--character-strategy", value]) == 0
    capsys.readouterr()


def test_lint_reads_sillytavern_settings_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _file(tmp_path, {"world_info_settings": {"world_info_match_whole_words": True}})
    assert main(["lint", ELDORIA, "--settings", path]) == 0
    assert "WI005" not in capsys.readouterr().out  # whole words: no substring redundancy
    assert main(["lint", ELDORIA, "--settings", _file(tmp_path, {"x": 1})]) == 2


def _switch_actions(command: str) -> dict[str, tuple[str, object, str | None]]:
    """``--flag`` -> (dest, const, help) of every on/off switch of ``command``."""
    from worldinfo.cli import build_parser

    parser = build_parser(full=(command,))
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    actions = sub.choices[command]._actions
    on = [a for a in actions if isinstance(a, argparse._StoreTrueAction) and a.default is None]
    off = [a for a in actions if a.option_strings[:1] and a.option_strings[0][:5] == "--no-"]
    return {a.option_strings[0]: (a.dest, a.const, a.help) for a in on + off}


@pytest.mark.parametrize("command", ["scan", "lint"])
def test_each_switch_is_an_on_off_pair_left_unset_by_default(command: str) -> None:
    switches = _switch_actions(command)
    ons = [s for s in switches if not s.startswith("--no-")]
    assert "--recursive" in ons and "--match-whole-words" in ons
    for on in ons:
        dest, const, help_text = switches[on]
        off = switches[f"--no-{on[2:]}"]
        assert (const, off[:2]) == (True, (dest, False))
        assert help_text is not None and "(default: " in help_text
        assert off[2] == f"turn off {on}"


def test_scan_and_lint_switches_read_the_same() -> None:
    """One helper builds both commands' pairs: a switch both have is described alike."""
    scan, lint = _switch_actions("scan"), _switch_actions("lint")
    shared = scan.keys() & lint.keys()
    assert {"--recursive", "--no-case-sensitive", "--match-whole-words"} <= shared
    assert {s: scan[s] for s in shared} == {s: lint[s] for s in shared}
