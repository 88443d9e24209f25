"""The shipped case groups of the regex translator equal the computation they were made by."""

from __future__ import annotations

import pytest

from worldinfo._js.regex import fold


@pytest.mark.parametrize("unicode", [False, True], ids=["legacy", "unicode"])
def test_shipped_case_groups_equal_the_computed_ones(*, unicode: bool) -> None:
    shipped = fold.shipped_groups()
    if shipped["versions"] != fold.case_data_versions():
        pytest.skip(
            f"casefold.json was made from {shipped['versions']}, this interpreter has "
            f"{fold.case_data_versions()}: regenerate with fold.write_case_groups"
        )
    assert fold._groups(unicode=unicode) == fold.compute_groups(unicode=unicode)


def test_groups_partition_the_cased_characters() -> None:
    for unicode in (False, True):
        members = [c for g in fold._groups(unicode=unicode) for c in g]
        assert len(members) == len(set(members)) > 1000
        assert all(len(g) > 1 and list(g) == sorted(g) for g in fold._groups(unicode=unicode))
