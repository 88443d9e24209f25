"""``worldinfo lint``: each check fires on its purpose-built entry and nowhere else; Eldoria;
the whole corpus without a crash (findings are counted, never printed: some files are adult)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from shared import corpus_file, corpus_names

from worldinfo import importers
from worldinfo.cli import main
from worldinfo.conformance.st_import import find_corpus_file
from worldinfo.lint import CODES, SEVERITIES, Finding, LintOptions, count_by_code, lint
from worldinfo.lint.fatal import JS_ERRORS as STOPPING
from worldinfo.types import Book, Entry, Settings

DATA = Path(__file__).parent / "data"
LINT = DATA / "lint"
ELDORIA = DATA / "eldoria" / "Eldoria.json"

# (path, code, severity) of every finding in tests/data/lint/problems.json, linted with a
# 1000-token context (budget 250): one entry per check, named after its code in `comment`.
PROBLEMS = {
    ("$.entries.0.key.1", "WI001", "warning"),
    ("$.entries.1.key.0", "WI002", "error"),
    ("$.entries.2.key.0", "WI003", "warning"),
    ("$.entries.2.key.1", "WI003", "warning"),
    ("$.entries.3.key.0", "WI004", "warning"),
    ("$.entries.4.key.1", "WI005", "info"),
    ("$.entries.5.key.0", "WI010", "error"),
    ("$.entries.5.key.1", "WI010", "error"),
    ("$.entries.6.key.0", "WI011", "error"),
    ("$.entries.7.key.0", "WI012", "error"),
    ("$.entries.7.key", "WI020", "warning"),
    ("$.entries.8.key.0", "WI013", "warning"),
    ("$.entries.9.key.0", "WI014", "warning"),
    ("$.entries.10.key", "WI020", "warning"),
    ("$.entries.11.selectiveLogic", "WI021", "error"),
    ("$.entries.12.keysecondary", "WI022", "error"),
    ("$.entries.13.keysecondary", "WI023", "info"),
    ("$.entries.14.scanDepth", "WI024", "warning"),
    ("$.entries.15.delayUntilRecursion", "WI030", "info"),
    ("$.entries.16.excludeRecursion", "WI031", "warning"),
    ("$.entries.17.outletName", "WI040", "error"),
    ("$.entries.18.position", "WI041", "error"),
    ("$.entries.19.depth", "WI042", "warning"),
    ("$.entries.20.triggers", "WI050", "error"),
    ("$.entries.21.triggers", "WI051", "warning"),
    ("$.entries.22.probability", "WI060", "warning"),
    ("$", "WI070", "warning"),
    ("$.entries.25.content", "WI071", "warning"),
    ("$.entries.26#34.uid", "WI080", "error"),
    ("$.entries.28.groupOverride", "WI090", "warning"),
    ("$.entries.29.group", "WI091", "warning"),
    ("$.entries.30.content", "WI100", "warning"),
    ("$.entries.31.content", "WI101", "error"),
    ("$.entries.32.content", "WI102", "warning"),
}


def _books(path: Path) -> tuple[Book, ...]:
    return importers.load(path).books


def _triples(findings: list[Finding]) -> set[tuple[str, str, str]]:
    return {(f.json_path, f.code, f.severity) for f in findings}


def book(*entries: Mapping[str, Any], name: str = "t") -> Book:
    """A book of entries built like SillyTavern's editor (template defaults, a key, fields)."""
    data = {
        str(i): dict(Entry.new(i, **{"key": ["marker"], **e}).data) for i, e in enumerate(entries)
    }
    return Book.from_json(name, {"entries": data})


def codes(*entries: Mapping[str, Any], options: LintOptions | None = None) -> list[str]:
    return [f.code for f in lint([book(*entries)], options or LintOptions())]


def test_problem_book_has_exactly_the_planted_findings() -> None:
    findings = lint(_books(LINT / "problems.json"), LintOptions(max_context=1000))
    assert _triples(findings) == PROBLEMS


def test_every_code_is_planted_somewhere() -> None:
    planted = {code for _, code, _ in PROBLEMS} | {"WI000"}
    never = lint(_books(LINT / "delay-never.json"))
    planted |= {f.code for f in never}
    planted |= set(STOPPING)  # the schemas refuse these in files: tests/test_scan_stoppers.py
    assert planted == set(CODES)


def test_budget_checks_follow_the_context_size() -> None:
    findings = lint(_books(LINT / "problems.json"))  # 8192 tokens: budget 2048
    assert not {"WI070", "WI071"} & {f.code for f in findings}


def test_delay_until_recursion_with_nothing_to_recurse_never_fires() -> None:
    findings = lint(_books(LINT / "delay-never.json"))
    assert _triples(findings) == {("$.entries.0.delayUntilRecursion", "WI030", "warning")}
    assert "never fires" in findings[0].message


@pytest.mark.parametrize(
    ("recursive", "expected"),
    [(True, []), (False, ["WI030"])],
)
def test_delay_until_recursion_with_known_recursion(recursive: bool, expected: list[str]) -> None:
    options = LintOptions(settings=Settings(recursive=recursive), recursion_known=True)
    entries = ({"key": ["vault"], "delayUntilRecursion": True}, {"key": ["bank"], "content": "x"})
    assert codes(*entries, options=options) == expected


def test_two_delay_levels_fire_even_with_recursion_off() -> None:
    options = LintOptions(recursion_known=True)
    entries = (
        {"key": ["vault"], "delayUntilRecursion": 1},
        {"key": ["bank"], "delayUntilRecursion": 2},
    )
    assert codes(*entries, options=options) == []


@pytest.mark.parametrize(
    ("logic", "primary", "secondary", "expected"),
    [
        (0, ["harbor"], ["ship"], []),
        (0, ["harbor"], [""], ["WI001", "WI022"]),
        (3, ["harbor"], ["ship", ""], ["WI001", "WI022"]),
        (3, ["harbor"], ["ship", "sail"], []),
        (2, ["harbor"], [" "], ["WI002", "WI022"]),
        (2, ["harbor town"], ["harbor"], ["WI022"]),
        (2, ["harbor", "port"], ["harbor"], []),
        (1, ["harbor"], ["harbor", "arbor"], ["WI022"]),
        (1, ["harbor"], ["harbor", "ship"], []),
        (1, ["harbor"], ["\t"], ["WI002", "WI022"]),
        (None, ["harbor"], ["ship"], []),
        (4, ["harbor"], ["ship"], ["WI021"]),
        ("3", ["harbor"], ["ship"], ["WI021"]),
    ],
)
def test_secondary_logic(
    logic: object, primary: list[str], secondary: list[str], expected: list[str]
) -> None:
    entry = {"key": primary, "keysecondary": secondary, "selectiveLogic": logic}
    assert codes(entry) == expected


def test_case_and_whole_words_change_what_is_redundant() -> None:
    entry = {"key": ["Castle", "castles"]}
    assert codes(entry) == ["WI005"]
    assert codes({**entry, "caseSensitive": True}) == []
    assert codes({**entry, "matchWholeWords": True}) == []
    assert codes({"key": ["castle", "Castle"], "matchWholeWords": True}) == ["WI005"]


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("/\\x01Alice:/", []),
        ("/\\x01Alice/y", []),
        ("/^.*dragon/", []),
        ("/drag(on|ons)/i", []),
        ("/^(?:dragon)/", []),
        ("/^a?dragon/", []),
        ("/^dragon|wyrm/", []),
        ("and/or", []),
        ("/me", []),
        ("/dragon/v", ["WI010"]),
        ("/[/", ["WI010"]),
        ("/dragon/y", ["WI012", "WI020"]),
        ("/\\bdragon/y", ["WI012", "WI020"]),
        ("/a[]b/", ["WI012", "WI020"]),
        ("/^dragon/m", ["WI014"]),
        ("/\\x01/", ["WI013"]),
        ("/(x+x+)+y/", ["WI011"]),
    ],
)
def test_regex_keys(key: str, expected: list[str]) -> None:
    assert codes({"key": [key]}) == expected


def test_keys_do_not_matter_for_constant_entries() -> None:
    assert codes({"key": [""], "constant": True}) == []
    assert codes({"key": [" ", "the", "/.*/"], "constant": True}) == []
    assert codes({"key": ["/(x+x+)+y/", "/x/gg"], "constant": True}) == ["WI011", "WI010"]
    assert codes({"key": [], "content": "@@activate\nText"}) == []
    assert codes({"key": [], "vectorized": True}) == []


def test_name_macros_always_fire_only_with_include_names() -> None:
    assert codes({"key": ["{{user}}"]}) == ["WI003"]
    options = LintOptions(settings=Settings(include_names=False))
    assert codes({"key": ["{{user}}"]}, options=options) == []


def test_disabled_entries_are_parked() -> None:
    assert codes({"key": [" "], "disable": True, "position": 9}) == []


def test_decorators() -> None:
    assert codes({"content": "@@activate\nText"}) == []
    assert codes({"content": "@@dont_activate\r\nText"}) == ["WI101"]
    assert codes({"content": "@@@depth 0\nText"}) == []  # @@@ fallback line: skipped (R14)
    assert codes({"content": "@@role assistant\n@@@activate\nText"}) == ["WI100"]
    assert codes({"content": "Text\n@@depth 0"}) == []  # not at the start: plain text


def test_triggers_and_outlets() -> None:
    assert codes({"triggers": ["normal", "swipe"]}) == []
    assert codes({"triggers": []}) == []
    assert codes({"triggers": None}) == []
    assert codes({"triggers": ["normal", "Swipe"]}) == ["WI050"]
    assert codes({"position": 7, "outletName": "side"}) == []
    assert codes({"position": "1"}) == ["WI041"]


def test_probability() -> None:
    assert codes({"probability": 50}) == []
    assert codes({"probability": 0, "useProbability": False}) == []
    assert codes({"probability": None}) == ["WI060"]
    assert codes({"probability": "abc"}) == ["WI060"]


def test_duplicate_uids_across_books_with_the_same_name() -> None:
    a, b = book({"key": ["xylo"]}, name="Lore"), book({"key": ["yarn"]}, name="Lore")
    assert [f.code for f in lint([a, b])] == ["WI080"]
    assert lint([a, book({"key": ["yarn"]}, name="Other")]) == []


def test_eldoria() -> None:
    # SillyTavern's default Eldoria book is clean except for what is really there: three
    # primary keys that add nothing while whole-word matching is off (SillyTavern's default),
    # because a shorter key of the same entry is a substring of them ("magical forest"
    # contains "forest", "monsters" contains "monster", "beasts" contains "beast"). They are
    # info only, and they disappear with whole-word matching, where they do matter.
    findings = lint(_books(ELDORIA))
    assert _triples(findings) == {
        ("$.entries.0.key.3", "WI005", "info"),
        ("$.entries.1.key.3", "WI005", "info"),
        ("$.entries.1.key.4", "WI005", "info"),
    }
    whole = LintOptions(settings=Settings(match_whole_words=True))
    assert lint(_books(ELDORIA), whole) == []


def test_whole_corpus_lints_without_a_crash() -> None:
    """Every corpus file available (bundled, plus the shared corpus when present)."""
    total: dict[str, int] = {}
    for path in filter(None, map(find_corpus_file, corpus_names())):
        result, _, _, _ = importers.analyse(path)
        if result is None:
            continue
        findings = lint(result.books)
        for f in findings:
            assert f.code in CODES and f.severity in SEVERITIES
            assert f.json_path.startswith("$")
        for code, n in count_by_code(findings).items():
            total[code] = total.get(code, 0) + n
    # Facts about real files (no text printed): Toaru (early 2023) has no `position` on any
    # of its 18 entries, so SillyTavern 1.15.0 leaves their content out of the prompt.
    toaru = lint(_books(corpus_file("st_world/st-2023-toaru.json")))
    assert count_by_code(toaru).get("WI041") == 18
    assert total.get("WI041", 0) >= 18


def test_cli_exit_codes_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", str(ELDORIA)]) == 0
    out, err = capsys.readouterr()
    assert out.count("WI005 info") == 3
    assert "1 book(s), 4 entries: 0 errors, 0 warnings, 3 infos (WI005 x3)" in err
    assert main(["lint", str(LINT / "problems.json"), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert {(d["json_path"], d["code"]) for d in data} >= {("$.entries.1.key.0", "WI002")}
    assert all(d["file"].endswith("problems.json") for d in data)
    assert main(["lint", str(ELDORIA), "--min-severity", "warning", "--match-whole-words"]) == 0
    assert capsys.readouterr().out == ""


def test_cli_unreadable_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{"entries": {"0": ', encoding="utf-8")
    assert main(["lint", str(bad), str(ELDORIA)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}: $: WI000 error: cannot import" in out


def test_cli_each_file_on_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    # The same book twice: together its uids collide, each on its own they do not.
    assert main(["lint", str(ELDORIA), str(ELDORIA), "--min-severity", "error"]) == 1
    assert capsys.readouterr().out.count("WI080") == 4
    assert main(["lint", "--each", str(ELDORIA), str(ELDORIA), "--min-severity", "error"]) == 0


def _json_values() -> Any:
    from hypothesis import strategies as st

    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-5, 10),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from(["", " ", "0", "100", "@@activate", "/a+/", "/^x/y", "a, b", "Normal"]),
        st.text(max_size=12),
    )
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3), max_leaves=6)


FIELDS = [
    "key",
    "keysecondary",
    "selectiveLogic",
    "selective",
    "constant",
    "content",
    "position",
    "outletName",
    "triggers",
    "probability",
    "useProbability",
    "scanDepth",
    "delayUntilRecursion",
    "excludeRecursion",
    "preventRecursion",
    "group",
    "groupOverride",
    "order",
    "depth",
    "caseSensitive",
    "matchWholeWords",
    "disable",
    "ignoreBudget",
    "uid",
]


def test_odd_field_values_never_crash() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(
        max_examples=int(os.environ.get("WORLDINFO_FUZZ_EXAMPLES", "300")),
        deadline=None,
        database=None,
    )
    @given(st.lists(st.dictionaries(st.sampled_from(FIELDS), _json_values()), max_size=4))
    def check(entries: list[dict[str, Any]]) -> None:
        raw = Book.from_json("odd", {"entries": {str(i): e for i, e in enumerate(entries)}})
        for f in lint([raw], LintOptions(regex_timeout=0.02)):
            assert f.code in CODES and f.severity in SEVERITIES

    check()


def test_cli_recursion_setting_from_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    delay = LINT / "delay-never.json"
    on = tmp_path / "on.json"
    on.write_text('{"recursive": true}', encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"depth": 4}', encoding="utf-8")
    problems = str(LINT / "problems.json")
    for args, expected in (
        ([], "WI030 info"),  # unknown: "fires only with recursion on"
        (["--settings", str(other)], "WI030 info"),
        (["--settings", str(on)], ""),
        (["--no-recursive"], "WI030 warning"),
    ):
        main(["lint", problems, "--min-severity", "info", *args])
        out = [line for line in capsys.readouterr().out.splitlines() if ".15." in line]
        assert (out[0].split(": ")[2] if out else "") == expected, args
    assert main(["lint", str(delay), "--recursive"]) == 0
    assert "WI030 warning" in capsys.readouterr().out
