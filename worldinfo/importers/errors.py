"""The one typed import error and the problems it carries."""

from __future__ import annotations

from collections.abc import Iterable

from worldinfo._record import record


@record(kw_only=False)
class Problem:
    """One thing wrong with an input, located by a JSON path.

    Args:
        json_path: where the problem is, e.g. ``$.entries.3.key`` (``$`` for the whole file).
        message: what is wrong, in a short sentence.
    """

    json_path: str
    message: str

    def __str__(self) -> str:
        return f"{self.json_path}: {self.message}"


class LorebookImportError(Exception):
    """An input could not be imported; nothing was imported from it.

    Args:
        file: the file name (or ``<bytes>``) that was read.
        format: the format it was read as (``"unknown"`` when detection failed).
        problems: every problem found, each with its JSON path.
    """

    def __init__(self, file: str, fmt: str, *, problems: Iterable[Problem]) -> None:
        self.file = file
        self.format = fmt
        self.problems: tuple[Problem, ...] = tuple(problems)
        first = str(self.problems[0]) if self.problems else "unknown problem"
        more = f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else ""
        super().__init__(f"{file}: cannot import as {fmt}: {first}{more}")

    def __reduce__(self) -> tuple[object, tuple[str, str, tuple[Problem, ...]]]:
        return (_rebuild, (self.file, self.format, self.problems))


def _rebuild(file: str, fmt: str, problems: tuple[Problem, ...]) -> LorebookImportError:
    return LorebookImportError(file, fmt, problems=problems)


class Reject(Exception):
    """Internal: raised inside a reader to stop with problems; turned into LorebookImportError."""

    def __init__(self, problems: Iterable[Problem], *, fmt: str | None = None) -> None:
        self.problems = tuple(problems)
        self.fmt = fmt
        super().__init__("; ".join(map(str, self.problems)))


def reject(path: str, message: str, *, fmt: str | None = None) -> Reject:
    """Return a ``Reject`` for one problem (``raise reject(...)``)."""
    return Reject([Problem(path, message)], fmt=fmt)
