"""What lint reports and what it looks at: codes, ``Finding``, options, located entries."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo._record import field, record
from worldinfo.types import Book, Entry, Settings

SEVERITIES = ("error", "warning", "info")

CODES: Mapping[str, tuple[str, str]] = {
    "WI000": ("error", "file cannot be imported"),
    "WI001": ("warning", "empty key never matches"),
    "WI002": ("error", "whitespace-only key matches everything"),
    "WI003": ("warning", "key fires on almost every message"),
    "WI004": ("warning", "very short key matches inside other words"),
    "WI005": ("info", "redundant key"),
    "WI010": ("error", "regex-shaped key is matched as plain text"),
    "WI011": ("error", "catastrophic regex key"),
    "WI012": ("error", "regex key can never match"),
    "WI013": ("warning", "regex key matches every scan text"),
    "WI014": ("warning", "regex anchor does not mean what it seems"),
    "WI020": ("warning", "entry has no usable primary key"),
    "WI021": ("error", "selectiveLogic is not 0-3: the entry never activates"),
    "WI022": ("error", "secondary-key logic can never pass"),
    "WI023": ("info", "secondary keys are ignored"),
    "WI024": ("warning", "scanDepth 0: the entry scans nothing"),
    "WI030": ("warning", "delayUntilRecursion but nothing can recurse into it"),
    "WI031": ("warning", "delayUntilRecursion with excludeRecursion"),
    "WI040": ("error", "outlet position without outletName"),
    "WI041": ("error", "unknown position: content is left out"),
    "WI042": ("warning", "@depth entry without a depth"),
    "WI050": ("error", "unknown generation trigger"),
    "WI051": ("warning", "triggers is not a list"),
    "WI060": ("warning", "probability never passes"),
    "WI070": ("warning", "constant entries alone exceed the budget"),
    "WI071": ("warning", "entry alone exceeds the budget"),
    "WI080": ("error", "duplicate uid"),
    "WI090": ("warning", "groupOverride tie"),
    "WI091": ("warning", "group name with stray whitespace"),
    "WI100": ("warning", "decorator SillyTavern ignores"),
    "WI101": ("error", "decorator with trailing characters has no effect"),
    "WI102": ("warning", "content is only decorator lines"),
    "WI110": ("error", "content is not text: the scan stops"),
    "WI111": ("error", "key is not text: the scan stops"),
    "WI112": ("error", "group is not text: the scan stops"),
}
"""Every code: default severity and a short title."""


@record
class Finding:
    """One problem.

    Args:
        code: the stable code (a key of ``CODES``).
        severity: ``error``, ``warning`` or ``info``.
        json_path: where, in SillyTavern world form (``$.entries.3.key.0``).
        message: what SillyTavern will do, in a sentence or two.
        book: the book name.
        uid: the entry's uid (``None`` for book-level findings).
    """

    code: str
    severity: str
    json_path: str
    message: str
    book: str = ""
    uid: JSONValue = None

    def to_json(self) -> dict[str, JSONValue]:
        """Plain JSON form."""
        return {
            "code": self.code,
            "severity": self.severity,
            "book": self.book,
            "uid": self.uid,
            "json_path": self.json_path,
            "message": self.message,
        }


@record
class LintOptions:
    """What the scan will look like.

    Args:
        settings: the World Info settings (budget, matching defaults, recursion).
        max_context: the context size the budget percentage applies to.
        recursion_known: ``settings.recursive`` is the user's real setting; when ``False``
            the delay-until-recursion check reports what holds with recursion on or off.
        regex_timeout: seconds allowed per adversarial regex test.
    """

    settings: Settings = field(default_factory=Settings)
    max_context: int = 8192
    recursion_known: bool = False
    regex_timeout: float = 0.1

    @property
    def budget(self) -> int:
        """The token budget as the scan computes it (R28 step 4)."""
        s = self.settings
        raw = _js.js_round(_js.to_number(s.budget) * self.max_context / 100)
        budget = 1 if math.isnan(raw) or raw == 0 else int(raw) if math.isfinite(raw) else 10**9
        cap = _js.to_number(s.budget_cap)
        if cap > 0 and budget > cap:
            budget = int(cap)
        return budget


@record
class Located:
    """An entry with the names the findings need."""

    book: str
    entry: Entry
    path: str

    @property
    def data(self) -> Mapping[str, JSONValue]:
        """The entry object."""
        return self.entry.data

    def get(self, name: str) -> JSONValue:
        """A field, ``undefined`` when missing."""
        return self.entry.data.get(name, UNDEFINED)

    def finding(self, code: str, where: str, *, message: str, severity: str = "") -> Finding:
        """A finding about field ``where`` of this entry (``""``: the entry itself)."""
        return Finding(
            code=code,
            severity=severity or CODES[code][0],
            json_path=f"{self.path}.{where}" if where else self.path,
            message=message,
            book=self.book,
            uid=self.entry.uid,
        )


def locate(books: Iterable[Book]) -> list[Located]:
    """Every entry of every book with its JSON path (``$.entries.<uid>``; a repeated uid is
    written ``<uid>#<position>``)."""
    out = []
    for book in books:
        used: set[str] = set()
        for i, entry in enumerate(book.entries or ()):
            uid = entry.data.get("uid", i)
            key = _js.to_string(uid)
            if key in used:
                key = f"{key}#{i}"
            used.add(key)
            out.append(Located(book=book.name, entry=entry, path=f"$.entries.{key}"))
    return out


def is_enabled(e: Located) -> bool:
    """Not disabled (``disable`` loosely equal to ``true`` disables, R31 step 2)."""
    return not _js.loose_eq_true(e.get("disable"))


def count_by_code(findings: Iterable[Finding]) -> dict[str, int]:
    """How many findings per code, sorted by code."""
    out: dict[str, int] = {}
    for f in sorted(findings, key=lambda f: f.code):
        out[f.code] = out.get(f.code, 0) + 1
    return out
