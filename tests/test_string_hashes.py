"""``string_hashes`` (cyrb53 of many strings in the lanes of one big integer) equals
``string_hash`` string by string, whatever the lengths and code units."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo._js import hashing, string_hash, string_hashes

TEXT = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from("\ud800\udfff\x00é中😀"))


@settings(max_examples=150, deadline=None)
@given(st.lists(TEXT, max_size=40))
def test_equals_the_scalar_hash(strings: list[str]) -> None:
    assert string_hashes(strings) == [string_hash(s) for s in strings]


@settings(max_examples=100, deadline=None)
@given(st.lists(TEXT.filter(bool), min_size=1, max_size=8))
def test_lanes_of_any_count_equal_the_scalar_hash(strings: list[str]) -> None:
    """``_lanes`` itself, from one lane up (``string_hashes`` uses it from ``_MIN_LANES``):
    the rows of live lanes it cuts shrink as lanes end."""
    strings.sort(key=lambda s: -len(s.encode("utf-16-le", "surrogatepass")))
    units = [s.encode("utf-16-le", "surrogatepass") for s in strings]
    assert hashing._lanes(units) == [string_hash(s) for s in strings]


def test_known_values_edges_and_batches() -> None:
    assert string_hashes([]) == []
    assert string_hashes(["", ""]) == [string_hash(""), string_hash("")]
    texts = ["x" * n for n in (0, 1, 2, 7, 8, 9, 300, 5000)] + ["😀" * 3, "\ud800"]
    assert string_hashes(texts) == [string_hash(t) for t in texts]


def test_small_batches_give_the_same_hashes() -> None:
    texts = [f"entry {i} " * (i % 17) for i in range(300)]
    want = [string_hash(t) for t in texts]
    patch = pytest.MonkeyPatch()
    try:
        patch.setattr(hashing, "_BATCH_BYTES", 64)  # forces many batches, some of one string
        assert string_hashes(texts) == want
        patch.setattr(hashing, "_MAX_LANES", 3)
        assert string_hashes(texts) == want
    finally:
        patch.undo()


def _cyrb53_one_unit_at_a_time(s: str) -> int:
    """cyrb53 as specified (spec/st-worldinfo.md, R13), one UTF-16 code unit per step."""
    units = s.encode("utf-16-le", "surrogatepass")
    h1, h2 = 0xDEADBEEF, 0x41C6CE57
    for i in range(0, len(units), 2):
        c = units[i] | units[i + 1] << 8
        h1 = ((h1 ^ c) * 2654435761) & 0xFFFFFFFF
        h2 = ((h2 ^ c) * 1597334677) & 0xFFFFFFFF
    h1 = (((h1 ^ (h1 >> 16)) * 2246822507) & 0xFFFFFFFF) ^ (
        ((h2 ^ (h2 >> 13)) * 3266489909) & 0xFFFFFFFF
    )
    h2 = (((h2 ^ (h2 >> 16)) * 2246822507) & 0xFFFFFFFF) ^ (
        ((h1 ^ (h1 >> 13)) * 3266489909) & 0xFFFFFFFF
    )
    return 4294967296 * (2097151 & h2) + h1


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_the_scalar_hash_steps_four_units_at_a_time_exactly(text: str) -> None:
    for s in (text, text + "a", text + "ab", text + "abc"):  # every remainder of 4
        assert string_hash(s) == _cyrb53_one_unit_at_a_time(s)


@settings(max_examples=60, deadline=None)
@given(st.lists(TEXT, min_size=3, max_size=3), st.integers(0, 40))
def test_three_long_strings_take_the_lanes_without_struct(parts: list[str], pad: int) -> None:
    """Three strings of ``_FEW_UNITS`` code units or more are hashed in lanes whose rows
    ``re`` cuts (``_few_rows``), whatever their lengths and code units; shorter, one by one."""
    strings = [p + "x" * (hashing._FEW_UNITS + pad * i) for i, p in enumerate(parts)]
    calls: list[int] = []
    cut = hashing._few_rows

    def spy(buf: bytearray, row: int, step: int, stop: int) -> list[bytes]:
        calls.append(1)
        return cut(buf, row, step, stop)

    patch = pytest.MonkeyPatch()
    try:
        patch.setattr(hashing, "_few_rows", spy)
        assert string_hashes(strings) == [string_hash(s) for s in strings]
        assert calls  # the lanes ran
        calls.clear()
        short = [*strings[:2], "y" * (hashing._FEW_UNITS - 1)]
        assert string_hashes(short) == [string_hash(s) for s in short]
        assert not calls  # one by one
    finally:
        patch.undo()
