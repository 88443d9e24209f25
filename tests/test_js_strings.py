"""JavaScript string lengths: UTF-16 code units, lone surrogates included."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from worldinfo._js.strings import to_utf16_units, utf16_len


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF)))
def test_utf16_len_counts_code_units(s: str) -> None:
    assert utf16_len(s) == len(s) + sum(1 for c in s if ord(c) > 0xFFFF) == len(to_utf16_units(s))


def test_lone_surrogates_and_astral_characters() -> None:
    assert utf16_len("\ud800") == 1
    assert utf16_len("a\U0001f600b") == 4
    assert utf16_len("龍") == 1
