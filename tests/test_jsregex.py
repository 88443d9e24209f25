"""Regex keys: the V8 case table (``golden/regex``), translator corner cases, cache, time bound."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import regex  # type: ignore[import-untyped,unused-ignore]

from golden import GOLDEN, check_outcome, mark
from worldinfo._js.regex import RegexKey, RegexTimeout, regex_key, split_key


def regex_params() -> Iterator[object]:
    for path in sorted((GOLDEN / "regex").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data["cases"] + data.get("redos_cases", []):
            case_id = f"regex/{case['id']}"
            yield pytest.param(path, case_id, id=case_id, marks=mark(case_id))


@pytest.mark.parametrize(("path", "case_id"), list(regex_params()))
def test_regex_case(path: Path, case_id: str) -> None:
    check_outcome(path, case_id)


def answer(key: str, haystack: str) -> bool | str:
    rk = regex_key(key)
    return "invalid" if rk is None else rk.test(haystack)


def cases(*rows: tuple[str, str, bool | str]) -> pytest.MarkDecorator:
    return pytest.mark.parametrize(("key", "haystack", "expected"), rows, ids=[r[0] for r in rows])


# --- the key rule (R22, Appendix B.3) --------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "split"),
    [
        ("/abc/", ("abc", "")),
        ("/a/b/", None),
        ("/a\\/b/", ("a/b", "")),
        ("/a\\/b\\/c/", ("a/b\\/c", "")),
        ("/a\\\\/b/", ("a\\/b", "")),
        ("/abc/gi", ("abc", "gi")),
        ("/abc/gg", ("abc", "gg")),
        ("/abc/d", None),
        ("/abc/v", None),
        ("/abc/I", None),
        ("//", None),
        ("//i", None),
        ("/a/", ("a", "")),
        ("abc", None),
        ("/\x01Bob/", ("\x01Bob", "")),
    ],
)
def test_split_key(key: str, split: tuple[str, str] | None) -> None:
    assert split_key(key) == split


@cases(
    ("/abc/gg", "abc", "invalid"),
    ("/(/", "(", "invalid"),
    ("/a,b/i", "A,B", True),
    ("/\x01Bob/", "\x01Bob", True),
)
def test_key_rule_end_to_end(key: str, haystack: str, expected: bool | str) -> None:
    assert answer(key, haystack) == expected


# --- translator corner cases (js-regex.md section 5) -----------------------------------------


@cases(
    ("/dragon$/", "dragon\n", False),
    ("/^b/", "a\nb", False),
    ("/^b/m", "a\rb", True),
    ("/a$/m", "a\u2028b", True),
    ("/^$/m", "a\r\nb", True),
    ("/^$/", "", True),
    ("/b/y", "ab", False),
    ("/a/y", "ab", True),
)
def test_anchors_and_sticky(key: str, haystack: str, expected: bool | str) -> None:
    assert answer(key, haystack) == expected


@cases(
    ("/a.b/", "a\rb", False),
    ("/a.b/", "a\u2029b", False),
    ("/a.b/", "a\x85b", True),
    ("/a.b/s", "a\nb", True),
    ("/a[^]b/", "a\nb", True),
    ("/[]/", "", False),
    ("/[^]/", "", False),
    ("/^.$/", "\U0001f600", False),
    ("/^..$/", "\U0001f600", True),
    ("/^.$/u", "\U0001f600", True),
)
def test_dot_and_empty_classes(key: str, haystack: str, expected: bool | str) -> None:
    assert answer(key, haystack) == expected


@cases(
    ("/\\w/", "é", False),
    ("/\\d/", "٣", False),
    ("/\\bcaf\\b/", "café", True),
    ("/\\b/", "Москва", False),
    ("/\\s/", "\ufeff", True),
    ("/\\s/", "\x85", False),
    ("/\\s/", "\u180e", False),
    ("/\\s/", "\x1c", False),
    ("/\\S/", "\x85", True),
    ("/\\w/iu", "ſ", True),
    ("/\\w/iu", "İ", False),
    ("/\\W/iu", "s", False),
    ("/\\bdragon\\b/iu", "DRAGON\u212a", False),
    ("/\\bdragon\\b/i", "DRAGON\u212a", True),
)
def test_ascii_word_and_js_space(key: str, haystack: str, expected: bool | str) -> None:
    assert answer(key, haystack) == expected


@cases(
    ("/^a{,5}$/", "a{,5}", True),
    ("/^a{2, 3}$/", "a{2, 3}", True),
    ("/{/", "{", True),
    ("/a{2/", "a{2", True),
    ("/]/", "]", True),
    ("/{2}/", "{2}", "invalid"),
    ("/a{2,1}/", "aa", "invalid"),
    ("/a**/", "a", "invalid"),
    ("/^*/", "", "invalid"),
    ("/(?<=a)?b/", "b", "invalid"),
    ("/(?=a)*b/", "b", True),
    ("/(?=a)*b/u", "b", "invalid"),
    ("/{/u", "{", "invalid"),
    ("/]/u", "]", "invalid"),
)
def test_braces_and_quantifiers(key: str, haystack: str, expected: bool | str) -> None:
    assert answer(key, haystack) == expected


@cases(
    ("/\\u{1F600}/u", "\U0001f600", True),
    ("/\\u{110000}/u", "x", "invalid"),
    ("/^\\u{3}$/", "uuu", True),
    ("/\\uD83D\\uDE00/u", "\U0001f600", True),
    ("/\\uD83D/u", "\U0001f600", False),
    ("/\\uD83D/", "\U0001f600", True),
    ("/^\U0001f600{2}$/", "\U0001f600\ude00", True),
    ("/^[\U0001f600\U0001f601]$/", "\U0001f600", False),
    ("/[\U0001f600-\U0001f602]/", "\U0001f601", "invalid"),
    ("/[\U0001f600-\U0001f602]/u", "\U0001f601", True),
)
def test_astral_and_utf16(key: str, haystack: str, expected: bool | str) -> None:
    assert answer(key, haystack) == expected


@cases(
    ("/(?<a>.)(?<b>.)\\k<b>\\k<a>/", "abba", True),
    ("/(?<$x>a)\\k<$x>/", "aa", True),
    ("/\\k<b>(?<b>x)/", "x", True),
    ("/\\k<a>/", "k<a>", True),
    ("/\\k<a>/u", "k<a>", "invalid"),
    ("/(?<a>x)\\k<b>/", "xx", "invalid"),
    ("/(?<a>x)(?<a>y)/", "xy", "invalid"),
    ("/(?<a>x)|(?<a>y)/", "x", "invalid"),
    ("/(?<1a>x)/", "x", "invalid"),
    ("/(?:(a)|b)\\1c/", "bc", True),
    ("/\\1(a)/", "a", True),
    ("/(a\\1)/", "a", True),
    ("/^(?:(a)|b){2}\\1$/", "ab", True),
    ("/^(?:(a)|b){2}\\1$/", "aba", False),
    ("/(?<=\\1(a))b/", "aab", True),
    ("/(?<=\\1(a))b/", "xab", False),
    ("/(?<=a+)b/", "aaab", True),
    ("/(?<!un)happy/", "unhappy", False),
)
def test_groups_backreferences_lookbehind(key: str, haystack: str, expected: bool | str) -> None:
    assert answer(key, haystack) == expected


@cases(
    ("/(a)\\10/", "a\x08", True),
    ("/\\11/", "\t", True),
    ("/\\400/", " 0", True),
    ("/\\8/", "8", True),
    ("/\\08/", "\x008", True),
    ("/[\\1]/", "\x01", True),
    ("/\\1/u", "\x01", "invalid"),
    ("/\\00/u", "\x00", "invalid"),
    ("/\\0/u", "\x00", True),
    ("/\\cJ/", "\n", True),
    ("/\\c1/", "\\c1", True),
    ("/[\\c1]/", "\x11", True),
    ("/\\e/", "e", True),
    ("/\\-/u", "-", "invalid"),
    ("/[\\-]/u", "-", True),
    ("/\\x4/", "x4", True),
)
def test_escapes(key: str, haystack: str, expected: bool | str) -> None:
    assert answer(key, haystack) == expected


@cases(
    ("/ſ/i", "s", False),
    ("/s/iu", "ſ", True),
    ("/k/i", "\u212a", False),
    ("/k/iu", "\u212a", True),
    ("/[a-z]/i", "\u212a", False),
    ("/[a-z]/iu", "\u212a", True),
    ("/[^a-z]/iu", "\u212a", False),
    ("/ß/i", "ẞ", False),
    ("/ß/iu", "ẞ", True),
    ("/ß/iu", "SS", False),
    ("/σ/i", "ς", True),
    ("/µ/i", "Μ", True),
    ("/ǆ/i", "ǅ", True),
    ("/\\u2126/i", "ω", False),
    ("/\\u2126/iu", "ω", True),
    ("/i/iu", "İ", False),
    ("/\U00010400/iu", "\U00010428", True),
    ("/\U00010400/i", "\U00010428", False),
    ("/(a)\\1/i", "aA", True),
    ("/(ſ)\\1/iu", "ſs", True),
    ("/(s)\\1/i", "sſ", False),
    ("/(\u1f88)\\1/i", "\u1f88\u1f80", False),
    ("/(i)\\1/iu", "iİ", False),
    ("/(k)\\1/iu", "k\u212a", True),
)
def test_case_folding(key: str, haystack: str, expected: bool | str) -> None:
    assert answer(key, haystack) == expected


@cases(
    ("/\\p{Lu}/u", "A", True),
    ("/\\p{Lu}/iu", "a", True),
    ("/\\P{Ll}/iu", "a", True),
    ("/[^\\p{Ll}]/iu", "A", False),
    ("/\\p{Script=Cyrillic}/u", "ж", True),
    ("/\\p{sc=Cyrl}/u", "ж", True),
    ("/\\p{scx=Grek}/u", "α", True),
    ("/\\p{General_Category=Letter}/u", "ж", True),
    ("/\\p{White_Space}/u", "\x85", True),
    ("/\\p{l}/u", "a", "invalid"),
    ("/\\p{Cyrillic}/u", "ж", "invalid"),
    ("/\\p{Script=cyrillic}/u", "ж", "invalid"),
    ("/\\p{InCyrillic}/u", "ж", "invalid"),
    ("/\\p{RGI_Emoji}/u", "\U0001f600", "invalid"),
    ("/\\p{L}/", "p{L}", True),
)
def test_unicode_properties(key: str, haystack: str, expected: bool | str) -> None:
    assert answer(key, haystack) == expected


@pytest.mark.parametrize("key", ["/(?i:a)/", "/(?i)a/", "/(?P<n>a)/", "/(?>a)/", "/(?#c)a/"])
def test_groups_node20_rejects(key: str) -> None:
    assert regex_key(key) is None


# --- huge counts: compiled with a limit, exact below it --------------------------------------


def test_huge_counts_compile_and_answer() -> None:
    rk = regex_key("/a{100000000}/")
    assert rk is not None
    assert rk.test("a" * 1000) is False
    rk = regex_key("/((a{100}){100}){100}/")
    assert rk is not None
    assert rk.test("a" * 1000) is False
    rk = regex_key("/^a{1,100000000}$/")
    assert rk is not None
    assert rk.test("aaa") is True


def test_clipped_count_on_long_text_is_reported() -> None:
    rk = regex_key("/(?:ab){60000}/")
    assert rk is not None
    assert rk.test("ab" * 100) is False
    with pytest.raises(RegexTimeout) as info:
        rk.test("ab" * 60000)
    assert info.value.key == "/(?:ab){60000}/"


# --- cache and time bound --------------------------------------------------------------------


def test_cache_returns_the_same_object_and_compiles_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = regex.compile

    def counting(pattern: str, flags: int = 0) -> object:
        calls.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(regex, "compile", counting)
    regex_key.cache_clear()
    first = regex_key("/cached (key)/i")
    second = regex_key("/cached (key)/i")
    assert isinstance(first, RegexKey)
    assert first is second
    assert calls == []  # compiled on its first test (worldinfo._js.regex.sure)
    assert first.test("a cached key") and not second.test("another")
    assert len(calls) == 1
    assert regex_key.cache_info().hits == 1


def test_catastrophic_pattern_is_bounded() -> None:
    key = "/(a|a)+$/"
    rk = regex_key(key)
    assert rk is not None
    with pytest.raises(RegexTimeout) as info:
        rk.test("a" * 40 + "!", timeout=0.05)
    assert info.value.key == key


def test_nested_quantifier_answers_without_timing_out() -> None:
    rk = regex_key("/(a+)+$/")
    assert rk is not None
    assert rk.test("a" * 64 + "!", timeout=0.05) is False
    assert rk.test("a" * 64, timeout=0.05) is True


@cases(
    ("/(?=.*sword)(?=.*shield)/is", "a shield\nand a sword", True),
    ("/(?=.*sword)(?=.*shield)/is", "sword only", False),
    ("/(?=.*sword)(?=.*shield)/i", "a shield\nand a sword", False),
    ("/(?=[^]*?b)(?=[\\s\\S]*a)/", "xxab", True),
    ("/(?=[^]*(a))(?=[^]*\\1b)/", "xab", True),
    ("/(?=.*a)|(?=.*b)/s", "xxb", True),
)
def test_lookahead_conjunctions(key: str, haystack: str, expected: bool | str) -> None:
    assert answer(key, haystack) == expected


def test_lookahead_conjunction_is_linear_on_long_text() -> None:
    rk = regex_key("/(?=.*sword)(?=.*shield)/is")
    assert rk is not None
    assert rk.test("sword and no other arm; " * 4000, timeout=0.05) is False


# --- answers checked against Node 20.20.2 (V8 11.3.244.8), the version of golden/regex -------

V8_CHECKED: list[tuple[str, str, str, bool | str]] = [
    ("(?<=(a+))b\\1", "", "aabaa", True),
    ("(?<=(a+))b\\1", "", "aaba", False),
    ("(?=(a+))a*b\\1", "", "baaabac", True),
    ("(?=(a+?))a*b\\1", "", "baaabac", True),
    ("(?<=(\\d+)(\\d+))$", "", "1053", True),
    ("^(?:a|ab)(?:c|bcd)(?:d*)$", "", "abcd", True),
    ("(a*)*b", "", "aaac", False),
    ("(a*)+\\1b", "", "aab", True),
    ("(?:(a)|(b))+\\1\\2", "", "abb", True),
    ("(?:(a)|(b))+\\1\\2", "", "aba", False),
    ("(a)|\\1b", "", "b", True),
    ("(?<!(a))b\\1", "", "cb", True),
    ("(?!(a))\\1b", "", "b", True),
    ("(?=(a))?\\1b", "", "ab", True),
    ("(?:(?=(a)))?\\1a", "", "a", True),
    ("(?:(?=(a))){0}\\1a", "", "a", True),
    ("^(?:(?=(\\w))\\w)*\\1$", "", "abcc", True),
    ("(a)?(?(1)b|c)", "", "c", "invalid"),
    ("^(a\\1?){4}$", "", "aaaaaaaaaa", False),
    ("^(a\\1?)(a\\1?)(a\\2?)(a\\3?)$", "", "aaaaaaaaaa", True),
    ("^(?:a?b?)*$", "", "a", True),
    ("(?:()|a)*b", "", "aab", True),
    ("(?:a|())*?\\1b", "", "aab", True),
    ("^(?:(a)|\\1b)+$", "", "ab", True),
    ("^(?:\\1b|(a))+$", "", "ab", True),
    ("(?<=\\1(a))b", "", "aab", True),
    ("(?<=(a)\\1)b", "", "aab", True),
    ("(?<=(?:(a)|b)\\1)c", "", "bc", True),
    ("(?<=a(?=b)b)c", "", "abc", True),
    ("\\b", "", "\xe9a", True),
    ("(?<=\\b)a", "", "\xe9a", True),
    ("x*y+$", "m", "xxy\n", True),
    ("[^]*?$", "", "abc", True),
    ("(?:a{0,2}){3}b", "", "aaaaaab", True),
    ("(?:a|b){2,3}?c", "", "ababc", True),
    ("(a+|b+)*c", "", "aabbc", True),
    ("(?<a>x)(?<b>\\k<a>)\\k<b>", "", "xxx", True),
    ("(?<$>x)\\k<$>", "", "xx", True),
    ("(?<_1>x)\\k<_1>", "", "xx", True),
    ("(?<\xe9>x)\\k<\xe9>", "u", "xx", True),
    ("(?<\\u{61}>x)\\k<a>", "", "xx", True),
    ("(?<\\ud835\\udc9c>x)", "", "x", True),
    ("(?<\U0001d49c>x)", "u", "x", True),
    ("(?<a\\u200d>x)", "", "x", True),
    ("\\u{61}", "ui", "A", True),
    ("[\\u{61}-\\u{7a}]", "ui", "Q", True),
    ("[\\uD83D\\uDE00-\\uD83D\\uDE02]", "u", "\U0001f601", True),
    ("[\\uD83D\\uDE00-\\uD83D\\uDE02]", "", "\U0001f601", "invalid"),
    ("^[\\uD83D\\uDE00]$", "u", "\U0001f600", True),
    ("^[^\\uD83D]$", "u", "\U0001f600", True),
    ("\\uDE00", "u", "\U0001f600", False),
    ("^.$", "u", "\ud83d", True),
    ("(?:\U0001f600)+", "", "\U0001f600\U0001f600", True),
    ("^\U0001f600+$", "", "\U0001f600\ude00", True),
    ("\\p{L}", "iu", "\u0345", True),
    ("\\p{Ll}", "iu", "\u0130", False),
    ("\\P{Lu}", "iu", "A", True),
    ("[\\P{Lu}]", "iu", "A", True),
    ("[^\\P{Lu}]", "iu", "a", False),
    ("[^\\p{Lu}]", "iu", "a", False),
    ("\\p{Lt}", "iu", "\u01c4", True),
    ("\\W", "iu", "\u212a", False),
    ("[\\W]", "iu", "k", False),
    ("[^\\w]", "iu", "\u017f", False),
    ("\\B", "iu", "\u017fs", True),
    ("\\b", "iu", "a\u017f", True),
    ("[a-\\u{10FFFF}]", "u", "\U0010ffff", True),
    ("\\cj", "", "\n", True),
    ("[\\c_]", "", "\x1f", True),
    ("[\\c-]", "", "-", True),
    ("\\c-", "", "\\c-", True),
    ("[\\c]", "", "\\", True),
    ("a{1,3}{2}", "", "a", "invalid"),
    ("a{1}?", "", "a", True),
    ("a{1}??", "", "a", "invalid"),
    ("a??", "", "a", True),
    ("a+?+", "", "a", "invalid"),
    ("(?:){3}", "", "", True),
    ("a{0}b", "", "b", True),
    ("\\k<a>(?<a>x)", "u", "x", True),
    ("(?<a>x)\\k<a>", "u", "xx", True),
    ("\\k", "u", "k", "invalid"),
    ("(?<a>.)\\k<a>", "i", "aA", True),
    ("(?<a>.)\\k<a>", "iu", "\u017fS", True),
    ("[\\d-\\w]", "", "-", True),
    ("[--a]", "", "-", True),
    ("[a-]", "", "-", True),
    ("[-]", "", "-", True),
    ("[^-]", "", "-", False),
    ("[\\w-]", "u", "-", True),
    ("[a-\\-]", "u", "b", "invalid"),
    ("\\00", "", "\x00", True),
    ("\\01", "", "\x01", True),
    ("\\012", "", "\n", True),
    ("\\0123", "", "\n3", True),
    ("\\377", "", "\xff", True),
    ("\\400", "", " 0", True),
    ("[\\377]", "", "\xff", True),
    ("[\\400]", "", "0", True),
    ("\\1(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10", "", "abcdefghijj", True),
    ("(a)\\11", "", "a\t", True),
    ("\\99", "", "99", True),
    ("(a)\\18", "", "a\x018", True),
    ("^\\s+$", "", "\t\x0b\x0c \xa0\ufeff\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000", True),
    ("\\s", "", "\u200b", False),
    ("\\s", "", "\u180e", False),
    ("$", "", "\n", True),
    ("^$", "m", "\r\n", True),
    ("a$", "m", "a\r\n", True),
    ("^a$", "m", "b\u2029a\u2029", True),
]


@pytest.mark.parametrize(
    ("pattern", "flags", "haystack", "expected"),
    V8_CHECKED,
    ids=[f"/{p}/{f} {h!a}" for p, f, h, _ in V8_CHECKED],
)
def test_v8_checked(pattern: str, flags: str, haystack: str, expected: bool | str) -> None:
    assert answer(f"/{pattern}/{flags}", haystack) == expected


def test_deep_nesting_is_plain_not_a_crash() -> None:
    assert regex_key("/" + "(" * 3000 + "a" + ")" * 3000 + "/") is None


def test_pattern_too_large_to_compile_is_reported() -> None:
    key = "/" + "a{49999}" * 100 + "/"
    rk = regex_key(key)
    assert rk is not None
    with pytest.raises(RegexTimeout) as info:
        rk.test("a")
    assert info.value.key == key
