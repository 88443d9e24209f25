"""pytest plugin: every ``*.witest.json`` file is a test module, each of its cases a test.

Registered as the ``worldinfo`` entry point of ``pytest11``, so installing worldinfo is all an
author needs: ``pytest`` then collects their activation tables next to their books.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from worldinfo.authortest import SUFFIX, AuthorTestError, Case, Importer, Suite, load, run_case
from worldinfo.importers import analyse
from worldinfo.importers.schema import validator

IMPORTER = Importer(analyse=analyse, validator=validator)


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    """Collect ``*.witest.json`` files."""
    if file_path.name.endswith(SUFFIX):
        collector: pytest.Collector = WitestFile.from_parent(parent, path=file_path)
        return collector
    return None


class WitestFile(pytest.File):
    """One activation-test file."""

    def collect(self) -> Iterator[pytest.Item]:
        """One item per case (a broken file fails collection with its JSON path)."""
        try:
            suite = load(self.path, importer=IMPORTER)
        except AuthorTestError as exc:
            raise self.CollectError(str(exc)) from None
        for case in suite.cases:
            yield WitestItem.from_parent(self, name=case.name, suite=suite, case=case)


class WitestFailure(Exception):
    """A case whose expectations did not hold."""


class WitestItem(pytest.Item):
    """One case: a scan and its expected activations."""

    def __init__(self, *, suite: Suite, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite
        self.case = case

    def runtest(self) -> None:
        """Scan and compare."""
        result = run_case(self.suite, self.case)
        if not result.ok:
            raise WitestFailure(result.describe())

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str:
        """The failure reason without a Python traceback."""
        if isinstance(excinfo.value, WitestFailure):
            return f"{self.path}::{self.case.name}: {excinfo.value}"
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int, str]:
        """Where the case is (file and case index)."""
        return self.path, self.case.index, f"witest: {self.case.name}"
