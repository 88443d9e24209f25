"""The values of an author test: a suite of cases, their steps, expectations and results."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo._record import field, record
from worldinfo.types import Book, Character, Message, Persona, Settings

SUFFIX = ".witest.json"


class AuthorTestError(Exception):
    """A test file cannot be used.

    Args:
        file: the test file.
        json_path: where in it (``$.cases.2.fire.0``).
        message: what is wrong.
    """

    def __init__(self, file: str, json_path: str, *, message: str) -> None:
        super().__init__(f"{file}: {json_path}: {message}")
        self.file = file
        self.json_path = json_path
        self.message = message


class UnreadableFile(AuthorTestError):
    """A file the test file names (book, card, chat) cannot be opened.

    Args:
        file: the test file.
        json_path: where it names the file (``$.books.0``).
        target: the named file, as found from the test file's folder.
        error: the error opening it.
    """

    def __init__(self, file: str, json_path: str, *, target: str, error: OSError) -> None:
        super().__init__(
            file, json_path, message=f"{target}: cannot read: {error.strerror or error}"
        )
        self.target = target
        self.error = error


@record
class Ref:
    """A resolved entry reference: book, uid and how the author wrote it."""

    world: str
    uid: JSONValue
    label: str

    @property
    def key(self) -> str:
        """The ``world.uid`` key SillyTavern tracks activations by."""
        return f"{self.world}.{_js.to_string(self.uid)}"


@record
class Step:
    """A later generation in the same chat (timed effects carry over): messages added first,
    then one scan and its expectations."""

    append: tuple[Message, ...] = ()
    type: str = "normal"
    fire: tuple[Ref, ...] = ()
    not_fire: tuple[Ref, ...] = ()
    only: bool = False


@record
class Case:
    """One scan and its expectations, optionally followed by later steps (``then``)."""

    name: str
    index: int
    chat: tuple[Message, ...]
    type: str = "normal"
    settings: Settings = field(default_factory=Settings)
    seed: int = 1
    max_context: int | None = None
    fire: tuple[Ref, ...] = ()
    not_fire: tuple[Ref, ...] = ()
    only: bool = False
    then: tuple[Step, ...] = ()


@record
class Suite:
    """A loaded test file."""

    path: Path
    books: Mapping[str, Book]
    global_books: tuple[str, ...]
    character: Character | None
    persona: Persona
    max_context: int
    cases: tuple[Case, ...]


@record
class CaseResult:
    """The outcome of one case.

    Attributes:
        missing: ``fire`` entries that did not activate, with the trace's reason.
        unexpected: entries that activated but must not (``not_fire``, or anything outside
            ``fire`` with ``only``), with the reason they activated.
        activated: every ``world.uid`` activated by the last scan.
        error: set when SillyTavern would stop the generation with an error.
    """

    case: Case
    missing: tuple[str, ...] = ()
    unexpected: tuple[str, ...] = ()
    activated: tuple[str, ...] = ()
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether every expectation held."""
        return not self.missing and not self.unexpected and self.error is None

    def describe(self) -> str:
        """One line: why the case failed (``"ok"`` when it passed)."""
        if self.error is not None:
            return f"the scan failed: {self.error}"
        parts = []
        if self.missing:
            parts.append("did not fire: " + "; ".join(self.missing))
        if self.unexpected:
            parts.append("fired but must not: " + "; ".join(self.unexpected))
        return " | ".join(parts) or "ok"


@record
class Importer:
    """What loading a test file needs from the importers, passed in by the front end (the CLI,
    the pytest plugin) so the library never imports ``worldinfo.importers`` itself.

    Args:
        analyse: ``worldinfo.importers.analyse``: a file's import result (or ``None``), its
            raw object, its format name and its problems.
        validator: ``worldinfo.importers.schema.validator``: the JSON Schema validator of a
            named schema (``"authortest"``).
    """

    analyse: Callable[[Path], tuple[Any, Any, str, Sequence[object]]]
    validator: Callable[[str], Any]
