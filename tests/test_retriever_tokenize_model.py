"""F2 against a model of the original's tokeniser (spec O4/O5), on the texts F21.2 allows."""

from __future__ import annotations

import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo.sources.retriever_tokenize import tokenize

_TABLE = {ord(c): None for c in string.punctuation}


def original_tokens(text: str) -> list[str]:
    """O4 + O5 as the spec states them, empty-string tokens included."""
    s = text.translate(_TABLE).lower().replace("\n", " ")
    if not s:
        return []
    if not s.strip(" "):
        return [""] * ((len(s) + 1) // 2)
    out: list[str] = []
    parts = re.split(r"( +)", s)
    for i, part in enumerate(parts):
        if not part:
            continue
        if part[0] != " ":
            out.append(part)
            continue
        k = len(part)
        edge = (
            i == 0
            or i == len(parts) - 1
            or (i == 1 and not parts[0])
            or (i == len(parts) - 2 and not parts[-1])
        )
        out.extend([""] * (k // 2 if edge else (k - 1) // 2))
    return out


def f21_ascii_condition(text: str) -> bool:
    """F21.2: after punctuation removal no run of 3+ spaces, no leading/trailing run of 2+.

    Plus: not made of spaces only (" " alone gives the original one empty token, O5).
    """
    s = text.translate(_TABLE).replace("\n", " ")
    if s and not s.strip(" "):
        return False
    return (
        "\t" not in s
        and "\r" not in s
        and "   " not in s
        and not (s.startswith("  ") or s.endswith("  "))
    )


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab ,.'-\n!", max_size=30))
def test_f2_equals_the_original_on_f21_texts(text: str) -> None:
    if f21_ascii_condition(text):
        assert tokenize(text) == original_tokens(text)
    else:
        assert tokenize(text) == [t for t in original_tokens(text) if t]


def test_model_reproduces_the_spec_examples() -> None:
    assert original_tokens("Well . . . okay") == ["well", "", "okay"]
    assert original_tokens("a   b") == ["a", "", "b"]
    assert original_tokens("   ") == ["", ""]
