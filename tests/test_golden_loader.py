"""The one golden loader marks a known divergence in every variant that runs the case."""

from __future__ import annotations

from typing import Any

import pytest
from known_divergences import KNOWN_DIVERGENCES

import golden


def _marked(params: list[Any]) -> set[str]:
    return {p.id for p in params if any(m.name == "xfail" for m in p.marks)}


def _ids(params: list[Any]) -> list[str]:
    return [p.id for p in params]


def test_a_listed_step_marks_every_variant_of_its_case(monkeypatch: pytest.MonkeyPatch) -> None:
    first = golden.case_files("st")[0].stem
    monkeypatch.setitem(KNOWN_DIVERGENCES, f"st/{first}/step-0", "not yet: a test")
    assert f"st/{first}/step-0" in _marked(list(golden.st_params()))
    assert f"st/{first}" in _marked(golden.case_params())
    mutated = _marked(golden.mutation_params(40))
    picked = {i for i in _ids(golden.mutation_params(40)) if i.startswith(f"mutate/{first}/")}
    assert mutated == picked


def test_ids_are_readable() -> None:
    assert all(i.startswith("st/") for i in _ids(golden.case_params()))
    assert all(i.count("/") == 2 for i in _ids(golden.mutation_params(5)))
    assert all(i.startswith("import/") for i in _ids(golden.import_params()))
