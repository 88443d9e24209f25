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
