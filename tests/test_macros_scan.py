"""The linear-time matchers give exactly what the JavaScript patterns match.

Each shape of ``worldinfo.macros.scan`` is compared with the backtracking regex it stands
for (written with JavaScript's ``.``: no line terminators) on generated texts made of the
pieces that matter (braces, colons, quotes, line ends, openers), and the adversarial
inputs they exist for are checked for the right answer.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo._js import JS_WS_CLASS
from worldinfo.macros import builtins, chance
from worldinfo.macros.scan import (
    Groups,
    Shape,
    greedy_quoted,
    lazy_to_close,
    name_value,
    sub,
    two_lazy,
    until_brace,
)

BIG = 10**9
DOT = "[^\n\r\u2028\u2029]"
PIECES = ["{{", "}}", "}", "{", ":", "::", "\n", "\r", "\u2028", "a", "b", " ", '"', "x:y"]
OPENERS = ["{{op::", "{{op:", "{{//", '{{op "', "{{random", "{{random ", "{{trim}}"]


def _texts() -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(PIECES + OPENERS), max_size=14).map("".join)


def _show(_start: int, groups: Groups) -> str:
    return "<" + "|".join(groups) + ">"


def _reference(pattern: str, text: str) -> str:
    return re.sub(pattern, lambda m: "<" + "|".join(m.groups()) + ">", text)


CASES: list[tuple[str, str, Shape]] = [
    (r"\{\{op::", r"\{\{op::([^}]+)\}\}", until_brace()),
    (r"\{\{op::", r"\{\{op::([^}]*)\}\}", until_brace(allow_empty=True)),
    (r"\{\{op::", r"\{\{op::([^:]+)::([^}]*)\}\}", name_value(allow_empty=True)),
    (r"\{\{op::", r"\{\{op::([^:]+)::([^}]+)\}\}", name_value(allow_empty=False)),
    (r"\{\{op:", r"\{\{op:(" + DOT + r"+?)\}\}", lazy_to_close(one_line=True, min_len=1)),
    (r"\{\{//", r"\{\{//([\s\S]*?)\}\}", lazy_to_close(one_line=False, min_len=0)),
    (r"\{\{op::", r"\{\{op::(" + DOT + "*?)::(" + DOT + r"*?)\}\}", two_lazy),
    (r'\{\{op "', r'\{\{op "(' + DOT + r'*)"\}\}', greedy_quoted),
]


@settings(max_examples=400, deadline=None)
@given(_texts())
def test_shapes_match_the_backtracking_patterns(text: str) -> None:
    for opener, pattern, shape in CASES:
        assert sub(text, re.compile(opener), shape, _show, limit=BIG) == _reference(
            pattern, text
        ), pattern


@settings(max_examples=400, deadline=None)
@given(_texts())
def test_random_list_matches_its_pattern(text: str) -> None:
    pattern = r"\{\{random" + JS_WS_CLASS + r"?::?([^}]+)\}\}"
    got = sub(text, chance._CHOICE["random"](), chance._choice_shape, _show, limit=BIG)
    assert got == _reference(pattern, text)


@settings(max_examples=400, deadline=None)
@given(_texts())
def test_trim_matches_its_pattern(text: str) -> None:
    want = re.sub(r"(?:\r?\n)*\{\{trim\}\}(?:\r?\n)*", "", text, flags=re.IGNORECASE)
    assert builtins._trim(None, text) == want  # type: ignore[arg-type]


def test_thousands_of_unclosed_openers_are_answered_in_one_pass() -> None:
    text = "{{op::" * 40_000 + "}"
    assert sub(text, re.compile(r"\{\{op::"), until_brace(), _show, limit=BIG) == text
    comments = "{{//" * 50_000
    shape = lazy_to_close(one_line=False, min_len=0)
    assert sub(comments, re.compile(r"\{\{//"), shape, _show, limit=BIG) == comments
    newlines = "\n" * 200_000 + "{{trim}}x"
    assert builtins._trim(None, newlines) == "x"  # type: ignore[arg-type]
