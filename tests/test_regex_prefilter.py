"""Regex keys' prefilter needles and line locality, property-tested against the regex itself.

A key's ``needles`` may only skip a text the key cannot match, and a ``line_local`` key must
decide a text exactly as its lines do, whatever the pattern, flags and text (case folding,
astral characters, the scan text's ``"\\n\\x01"`` joiners included).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from worldinfo import _js
from worldinfo._js.regex import RegexKey, RegexTimeout, regex_key

_CHARS = ["a", "b", "K", "k", "s", "S", "é", "É", "σ", "Σ", "ς", "ſ", "\u212a", "İ", "i", "-", " "]
_ATOMS = [
    *_CHARS,
    "\U0001d49c",
    "\\b",
    "\\B",
    "\\w",
    "\\W",
    "\\s",
    "\\S",
    "\\d",
    ".",
    "[ab]",
    "[^a]",
    "[sS]",
    "[\\s\\S]",
    "\\n",
    "\\x01",
    "^",
    "$",
    "\\.",
    "\\u212a",
    "\\1",
]
_QUANTS = ["", "", "", "?", "*", "+", "{2}", "{1,3}", "{0,2}", "+?"]
_TEXT = [*_CHARS, "\n", "\x01", "\r", "\U0001d49c", "ab", "ks", "\n\x01", "x", "9", "_"]


def _atom_pattern() -> st.SearchStrategy[str]:
    base = st.sampled_from(_ATOMS)

    def grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        seq = st.lists(inner, min_size=1, max_size=3).map("".join)
        return st.one_of(
            st.tuples(seq, st.sampled_from(_QUANTS)).map(lambda t: t[0] + t[1]),
            st.tuples(st.sampled_from(["(", "(?:", "(?=", "(?!", "(?<=", "(?<!"]), seq).map(
                lambda t: f"{t[0]}{t[1]})"
            ),
            st.lists(seq, min_size=2, max_size=3).map(lambda alts: "(?:" + "|".join(alts) + ")"),
            st.tuples(seq, st.sampled_from(_QUANTS)).map(lambda t: f"(?:{t[0]}){t[1]}"),
        )

    return st.recursive(base, grow, max_leaves=6)


_PATTERN = st.lists(_atom_pattern(), min_size=1, max_size=2).map("".join)
_FLAGS = st.sets(st.sampled_from("imsuy")).map(lambda f: "".join(sorted(f)))
_HAY = st.lists(st.sampled_from(_TEXT), max_size=20).map("".join)


def _key(pattern: str, flags: str) -> RegexKey | None:
    key = regex_key(f"/{pattern.replace('/', '')}/{flags}")
    if key is None or key.refused is not None or key.exact_below is not None:
        return None
    return key


def _test(key: RegexKey, text: str) -> bool | None:
    try:
        return key.test(text)
    except RegexTimeout:
        return None


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PATTERN, _FLAGS, st.lists(_HAY, min_size=1, max_size=4))
def test_needles_are_in_every_matched_text(pattern: str, flags: str, texts: list[str]) -> None:
    key = _key(pattern, flags)
    if key is None or key.needles is None:
        return
    for text in texts:
        if _test(key, text):
            seen = _js.lower(text) if key.lowered else text
            assert any(n in seen for n in key.needles), (key.key, text, key.needles)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PATTERN, _FLAGS, st.lists(_HAY, min_size=1, max_size=4))
def test_line_local_keys_decide_a_text_by_its_lines(
    pattern: str, flags: str, lines: list[str]
) -> None:
    key = _key(pattern, flags)
    if key is None or not key.line_local:
        return
    text = "\n".join(lines)
    whole = _test(key, text)
    parts = [_test(key, line) for line in text.split("\n")]
    if whole is None or None in parts:
        return
    assert whole == any(parts), (key.key, text)


def test_shapes_shared_books_use_get_needles() -> None:
    """Alternation, groups, counted repeats and ``i`` keys get needles (not just plain runs)."""
    cases = {
        "/\\b(?:dragon|wyrm)s?\\b/i": ("dragon", "wyrm"),
        "/(?<![\\w-])Castle(?![\\w-])/": ("Castle",),
        "/(?:abc){2,5}/": ("abcabc",),
        "/colou?r/i": ("color", "colour"),
        "/\\bKISS\\b/iu": ("ki",),  # "s" also stands for "ſ" with "u": no needle character
        "/foo.{0,40}bars/is": ("bars",),
    }
    for key, want in cases.items():
        rk = regex_key(key)
        assert rk is not None
        assert rk.needles == want, (key, rk.needles)
    assert regex_key("/a*|b/") is not None
    assert regex_key("/a*|b/").needles is None  # type: ignore[union-attr]
    assert regex_key("/^x/m").line_local  # type: ignore[union-attr]
    assert not regex_key("/^x/").line_local  # type: ignore[union-attr]
    assert not regex_key("/a[^b]c/").line_local  # type: ignore[union-attr]
    assert not regex_key("/a.c/s").line_local  # type: ignore[union-attr]
