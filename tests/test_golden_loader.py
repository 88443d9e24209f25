"""The one golden loader marks a known divergence in every variant that runs the case."""

from __future__ import annotations

from typing import Any

import pytest

import golden


def _marked(params: list[Any]) -> set[str]:
    return {p.id for p in params if any(m.name == "xfail" for m in p.marks)}


def test_a_listed_step_marks_every_variant_of_its_case(monkeypatch: pytest.MonkeyPatch) -> None:
    first = golden.case_files("st")[0].stem
    monkeypatch.setitem(golden.KNOWN_DIVERGENCES, f"st/{first}/step-0", "not yet: a test")
    assert f"st/{first}/step-0" in _marked(list(golden.st_params()))
    assert f"st/{first}" in _marked(golden.case_params())
    mutated = _marked(golden.mutation_params(40))
    picked = {p.id for p in golden.mutation_params(40) if p.id.startswith(f"mutate/{first}/")}
    assert mutated == picked


def test_ids_are_readable() -> None:
    assert all(p.id.startswith("st/") for p in golden.case_params())
    assert all(p.id.count("/") == 2 for p in golden.mutation_params(5))
    assert all(p.id.startswith("import/") for p in golden.import_params())
