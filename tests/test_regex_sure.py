"""Deferred regex compiling: ``sure.compiles_surely`` admits only what ``regex`` compiles.

A key whose translation ``compiles_surely`` accepts is compiled on its first test, so the
grammar must never admit a pattern ``regex`` refuses (that key would have been plain text).
Patterns generated from the grammar itself are compiled here, as are the translations of
every key of the V8 case table.
"""

from __future__ import annotations

import json
import sys

import hypothesis.strategies as st
import pytest
import regex  # type: ignore[import-untyped,unused-ignore]
from hypothesis import given, settings

from golden import GOLDEN
from worldinfo._js.regex import RegexTimeout, _Deferred, regex_key, split_key
from worldinfo._js.regex.atoms import _matches_newline
from worldinfo._js.regex.chars import CharSet, escape_cp, normalize
from worldinfo._js.regex.names import JSSyntaxError
from worldinfo._js.regex.parse import translate
from worldinfo._js.regex.sure import MAX_COUNT, MAX_DEPTH, MAX_LENGTH, compiles_surely

_CP = st.one_of(
    st.integers(0, 0x7F),
    st.integers(0x80, 0xFFFF),  # lone surrogates included: the non-u translation has them
    st.integers(0x10000, 0x10FFFF),
)
_CHAR = _CP.map(escape_cp)


@st.composite
def _class(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        return "[\\s\\S]"
    items = []
    for lo in draw(st.lists(_CP, min_size=1, max_size=4)):
        hi = draw(st.integers(lo, min(lo + 300, 0x10FFFF)))
        items.append(escape_cp(lo) if lo == hi else f"{escape_cp(lo)}-{escape_cp(hi)}")
    return f"[{'^' if draw(st.booleans()) else ''}{''.join(items)}]"


@st.composite
def _quant(draw: st.DrawFn) -> str:
    lo = draw(st.integers(0, MAX_COUNT))
    hi = draw(st.integers(lo, MAX_COUNT))
    q = draw(st.sampled_from(["*", "+", "?", f"{{{lo}}}", f"{{{lo},}}", f"{{{lo},{hi}}}"]))
    return q + draw(st.sampled_from(["", "?"]))


_OPENS = ["(?=", "(?!", "(?<=", "(?<!", "(?a:", "(?P<g1>", "(?P<g2>", "(?P<g17>"]
_LEAF = st.one_of(_CHAR, _class(), st.sampled_from(["\\A", "\\Z", "\\b", "\\B"]))


def _patterns() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        alt = st.lists(inner, max_size=4).map("".join)
        pattern = st.lists(alt, min_size=1, max_size=3).map("|".join)
        grouped = st.tuples(pattern, st.one_of(st.just(""), _quant())).map(
            # no count over a group that holds one ("{" comes only from counts here)
            lambda t: f"(?:{t[0]}){'' if '{' in t[0] and t[1][:1] == '{' else t[1]}"
        )
        other = st.tuples(st.sampled_from(_OPENS), pattern).map(lambda t: f"{t[0]}{t[1]})")
        return st.one_of(grouped, other, pattern)

    return st.recursive(_LEAF, extend, max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(_patterns())
def test_regex_compiles_every_pattern_of_the_grammar(pattern: str) -> None:
    if len(pattern) > MAX_LENGTH:
        return
    assert compiles_surely(pattern), pattern
    regex.compile(pattern, regex.V0)  # raises if the grammar admitted too much


def test_a_count_over_a_counted_group_is_compiled_at_once() -> None:
    # regex V0 segfaults compiling the first: such keys compile when the plan is built, as
    # before deferring, never on a later first test
    assert not compiles_surely("(?:(?:a|){687}?){587,870}?")
    assert not compiles_surely("(?:(?=(?:a){2})b){3}")
    assert compiles_surely("(?:(?:a){3})*")
    assert compiles_surely("(?:(?:a)*){5}(?:b){6}")


def _table_keys() -> list[str]:
    keys: set[str] = set()
    for path in sorted((GOLDEN / "regex").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        keys.update(c["key"] for c in data["cases"] + data.get("redos_cases", []))
    return sorted(keys)


def test_every_admitted_translation_of_the_case_table_compiles() -> None:
    admitted = 0
    for key in _table_keys():
        parts = split_key(key.strip())
        if parts is None:
            continue
        try:
            tr = translate(*parts)
        except (JSSyntaxError, RecursionError):
            continue
        if compiles_surely(tr.pattern):
            admitted += 1
            regex.compile(tr.pattern, regex.V0)
    assert admitted >= 50  # the grammar covers the common keys, not just a corner


@pytest.mark.parametrize(
    "pattern",
    [
        "(?P<g1>a)(?(1)(?:\\1))",  # backreference
        "[\\p{gc=L}]",  # property
        "(?:a){2,5000}",  # count beyond MAX_COUNT
        "(?:a){5,2}",  # counts out of order
        "[z-a]",  # range out of order
        "a*",  # a quantifier after anything but a (?:) group
        "(?=a)*",
        "(?:a",  # unbalanced
        "a)",
        "[]",
        "(?i:a)",
        "a\\d",
        "a-b",
        "a" * (MAX_LENGTH + 1),
        "(?:" * (MAX_DEPTH + 1) + "a" + ")" * (MAX_DEPTH + 1),
    ],
)
def test_what_the_grammar_leaves_to_an_immediate_compile(pattern: str) -> None:
    assert not compiles_surely(pattern)


def test_a_plain_word_key_is_compiled_on_its_first_test() -> None:
    rk = regex_key("/\\bsure-deferral-probe\\b/i")
    assert rk is not None and isinstance(rk.compiled, _Deferred)
    assert rk.compiled._compiled is None
    assert not rk.test("nothing here")
    assert rk.compiled._compiled is not None
    assert rk.test("A SURE-DEFERRAL-PROBE.")


def test_a_key_outside_the_grammar_is_compiled_at_once() -> None:
    rk = regex_key("/(sure)\\1-probe/")
    assert rk is not None and not isinstance(rk.compiled, _Deferred)
    assert rk.test("suresure-probe")


def test_a_deferred_compile_that_fails_is_reported_as_undecided() -> None:
    bad = _Deferred("(?P<", "/probe/")  # never admitted by compiles_surely
    with pytest.raises(RegexTimeout, match="not compiled by regex"):
        bad.search("x", timeout=1.0)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=4),
    st.booleans(),
)
def test_newline_membership_is_read_from_the_ranges(
    pairs: list[tuple[int, int]], negate: bool
) -> None:
    cs = CharSet(ranges=normalize([(min(a, b), max(a, b)) for a, b in pairs]))
    expected = regex.match(cs.emit(negate=negate), "\n") is not None
    assert _matches_newline(cs, negate=negate) is expected


def test_newline_membership_of_a_property_class_asks_regex() -> None:
    cs = CharSet(props=("\\p{gc=Cc}",))
    assert _matches_newline(cs, negate=False) and not _matches_newline(cs, negate=True)


def test_the_translator_does_not_import_regex_for_a_word_key() -> None:
    import subprocess

    code = (
        "import sys\nfrom worldinfo._js.regex import regex_key\n"
        "rk = regex_key('/\\\\bdragons?\\\\b/i')\nassert rk is not None\n"
        "print('regex' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("unicode", [False, True])
def test_ascii_case_groups_are_the_shipped_ones(unicode: bool) -> None:
    from worldinfo._js.regex import fold

    shipped = {c: g for g in fold._groups(unicode=unicode) for c in g}
    for cp in range(0x80):
        assert fold.case_group(cp, unicode=unicode) == shipped.get(cp, (cp,)), cp
        assert fold.fold_char(cp, unicode=unicode) == fold.fold_table(unicode=unicode).get(cp, cp)


@pytest.mark.parametrize(
    ("pattern", "beyond"),
    [
        ("\\bdragons?\\b", False),
        ("foo|bar\\.", False),
        ("caf\u00e9", True),
        ("[a-z]", True),
        ("\\d+", True),
        ("\\u00e9", True),
        ("\\x41", True),
    ],
)
def test_which_i_keys_read_the_case_tables_when_translated(pattern: str, beyond: bool) -> None:
    from worldinfo._js.regex import _folds_beyond_ascii

    assert _folds_beyond_ascii(pattern) is beyond


def test_an_ascii_i_key_is_read_without_the_case_tables() -> None:
    import subprocess

    code = (
        "from worldinfo._js.regex import prepare_tables, regex_key, fold\n"
        "key = '/\\\\bdragons?\\\\b/i'\nprepare_tables(key)\nrk = regex_key(key)\n"
        "before = fold.shipped_groups.cache_info().currsize\n"
        "assert rk is not None and rk.test('Two DRAGONS')\n"
        "print(before, fold.shipped_groups.cache_info().currsize)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "1"]  # read on the first test, for the text's fold
