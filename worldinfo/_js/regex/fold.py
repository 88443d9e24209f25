"""Case-insensitive matching of the JavaScript regex translator, as explicit character sets.

``regex.IGNORECASE`` is never used: its equivalences differ from both of JavaScript's.
Without ``u`` two UTF-16 units are equal when their ``toUpperCase`` forms are (single-unit
results only, and never a non-ASCII unit to an ASCII one; Python's Unicode data); with ``u``
when their Unicode simple case foldings are (``regex``'s Unicode data, which is as recent as
V8's ICU, minus its Turkic i folding).

An ``i`` key is matched against the canonical form of the text (each character replaced by
the smallest member of its case group): literals are emitted canonical, classes as their
closure, and backreferences then compare exactly as JavaScript does.

The case groups are shipped precomputed (``worldinfo/_js/casefold.json``, written by
``write_case_groups`` from ``compute_groups``): computing them costs about 0.7 s, which every
process would pay on its first ``i`` key; a test checks the file against the computation on
the Unicode data it was made with.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import json
import os
import unicodedata

from worldinfo._js.regex.chars import CharSet, normalize

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from pathlib import Path

_CASED_END = 0x20000
"""No code point at or above this has a case mapping."""

_TURKIC = (0x130, 0x131)
"""İ and ı: ``regex`` folds them with i/I; Unicode simple case folding (JavaScript) does not."""


def _canon_upper(cp: int) -> int:
    """ECMAScript Canonicalize without ``u``: ``toUpperCase``, single results, no non-ASCII→ASCII."""
    up = chr(cp).upper()
    if len(up) != 1:
        return cp
    ucp = ord(up)
    if cp >= 0x80 and ucp < 0x80:
        return cp
    return ucp


@functools.cache
def _regex_equivalents() -> dict[int, frozenset[int]]:
    """For every cased character, what ``regex`` (its own, recent Unicode data) folds it with."""
    import regex  # type: ignore[import-untyped,unused-ignore]

    everything = "".join(chr(cp) for cp in range(_CASED_END) if not 0xD800 <= cp <= 0xDFFF)
    cands = {ord(c) for c in regex.findall(r"\p{Changes_When_Casemapped}", everything)}
    for cp in range(_CASED_END):
        if not 0xD800 <= cp <= 0xDFFF and _cased_in_python(cp):
            cands.add(cp)
    text = "".join(map(chr, sorted(cands)))
    return {
        cp: frozenset(ord(m) for m in regex.findall("(?i)" + regex.escape(chr(cp)), text))
        for cp in cands
    }


def _unicode_groups() -> list[list[int]]:
    """Simple case folding classes: ``regex``'s equivalences without its Turkic extras."""
    seen: set[int] = set()
    groups: list[list[int]] = []
    for cp, eq in sorted(_regex_equivalents().items()):
        if cp in seen or cp in _TURKIC:
            continue
        group = sorted(eq - set(_TURKIC))
        seen.update(group)
        groups.append(group)
    return groups


CASE_GROUPS_PACKAGE, CASE_GROUPS_FILE = "worldinfo._js", "casefold.json"
"""Where the shipped case groups are (package data, so the file travels with ``_js``)."""


def case_data_versions() -> dict[str, str]:
    """The Unicode data the groups are computed from: Python's and ``regex``'s."""
    import regex  # type: ignore[import-untyped,unused-ignore]

    return {"python_unicode": unicodedata.unidata_version, "regex": str(regex.__version__)}


@functools.cache
def shipped_groups() -> dict[str, object]:
    """The shipped file's content: ``versions`` and the groups of each mode."""
    # As pkgutil.get_data: the package's own loader reads the file (a folder or a zip), so
    # importlib.resources and zipfile stay unimported (start-up time)
    package = importlib.import_module(CASE_GROUPS_PACKAGE)
    loader = getattr(package.__spec__, "loader", None)
    if hasattr(loader, "get_data") and package.__file__:
        where = os.path.join(os.path.dirname(package.__file__), CASE_GROUPS_FILE)
        raw: bytes = loader.get_data(where)  # type: ignore[union-attr]
    else:  # a loader without get_data: importlib.resources knows how to read it
        from importlib import resources

        raw = resources.files(CASE_GROUPS_PACKAGE).joinpath(CASE_GROUPS_FILE).read_bytes()
    data: dict[str, object] = json.loads(raw.decode("utf-8"))
    return data


@functools.cache
def _groups(*, unicode: bool) -> tuple[tuple[int, ...], ...]:
    """Equivalence classes (of size > 1) of case-insensitive equality (the shipped ones)."""
    groups = shipped_groups()["unicode" if unicode else "legacy"]
    assert isinstance(groups, list)
    return tuple(map(tuple, groups))  # the file's lists of ints, at C speed (start-up time)


def write_case_groups(path: str | Path) -> None:
    """Write ``compute_groups`` of both modes, with the data versions, as the shipped file."""
    data = {
        "versions": case_data_versions(),
        "legacy": [list(g) for g in compute_groups(unicode=False)],
        "unicode": [list(g) for g in compute_groups(unicode=True)],
    }
    from pathlib import Path

    Path(path).write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")


def compute_groups(*, unicode: bool) -> tuple[tuple[int, ...], ...]:
    """Equivalence classes (of size > 1) of case-insensitive equality, computed afresh."""
    if unicode:
        return tuple(tuple(g) for g in _unicode_groups() if len(g) > 1)
    by_canon: dict[int, list[int]] = {}
    for cp in range(0x10000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        by_canon.setdefault(_canon_upper(cp), []).append(cp)
    groups = [tuple(g) for g in by_canon.values() if len(g) > 1]
    # Pairs cased after Python's Unicode version (e.g. U+019B/U+A7DC): take regex's pairing.
    known = {cp for g in groups for cp in g}
    for cp, eq in sorted(_regex_equivalents().items()):
        if cp in known or cp > 0xFFFF or _cased_in_python(cp):
            continue
        group = tuple(sorted(c for c in eq if 0x80 <= c <= 0xFFFF and c not in known))
        if len(group) > 1:
            groups.append(group)
            known.update(group)
    return tuple(groups)


def _cased_in_python(cp: int) -> bool:
    c = chr(cp)
    return c.lower() != c or c.upper() != c or c.casefold() != c


@functools.cache
def fold_table(*, unicode: bool) -> dict[int, int]:
    """Every character that has case variants, mapped to its group's smallest member.

    ``str.translate`` with this table turns a text into its canonical form: two texts are
    equal ignoring case (JavaScript's rule for the mode) iff their canonical forms are equal.
    """
    return {c: g[0] for g in _groups(unicode=unicode) for c in g if c != g[0]}


@functools.cache
def _group_of(*, unicode: bool) -> dict[int, tuple[int, ...]]:
    return {c: g for g in _groups(unicode=unicode) for c in g}


_ASCII_EXTRA = {0x4B: 0x212A, 0x6B: 0x212A, 0x53: 0x17F, 0x73: 0x17F}
"""The non-ASCII members of ASCII letters' simple case folding groups (``u`` only): K and
KELVIN SIGN, S and LONG S; without ``u`` no non-ASCII unit matches an ASCII one."""


def _ascii_group(cp: int, *, unicode: bool) -> tuple[int, ...]:
    """``case_group`` of an ASCII character, without reading the shipped groups (start-up
    time: a scan's ``i`` keys are mostly ASCII; ``tests/test_regex_sure.py`` compares every
    ASCII character with the shipped groups in both modes)."""
    c = chr(cp)
    if not c.isalpha():
        return (cp,)
    extra = _ASCII_EXTRA.get(cp) if unicode else None
    pair = (ord(c.upper()), ord(c.lower()))
    return pair if extra is None else (*pair, extra)


def case_group(cp: int, *, unicode: bool) -> tuple[int, ...]:
    """Every character an ``i`` pattern lets ``cp`` stand for (``cp`` itself included)."""
    if cp < 0x80:
        return _ascii_group(cp, unicode=unicode)
    return _group_of(unicode=unicode).get(cp, (cp,))


def fold_char(cp: int, *, unicode: bool) -> int:
    """The canonical form of one character (a literal of an ``i`` pattern)."""
    if cp < 0x80:
        return _ascii_group(cp, unicode=unicode)[0]
    return fold_table(unicode=unicode).get(cp, cp)


@functools.lru_cache(maxsize=8)
def fold_text(text: str, *, unicode: bool) -> str:
    """The canonical form of a scan text (cached: every ``i`` key of a scan tests the same)."""
    return text.translate(fold_table(unicode=unicode))


def prepare(*, unicode: bool) -> None:
    """Build the case tables of a mode now (a one-time cost of about a second per process),
    so that timing a compile measures the key, not the first use of the tables."""
    fold_table(unicode=unicode)
    _members(unicode=unicode)


@functools.cache
def _members(*, unicode: bool) -> tuple[str, tuple[int, ...]]:
    """Every member of every case group, as one string, and the group of each position."""
    groups = _groups(unicode=unicode)
    text = "".join(map(chr, itertools.chain.from_iterable(groups)))
    owner = tuple(
        itertools.chain.from_iterable(map(itertools.repeat, range(len(groups)), map(len, groups)))
    )
    return text, owner


@functools.lru_cache(maxsize=256)
def fold_closure(cs: CharSet, *, unicode: bool) -> CharSet:
    """Close a set under case-insensitive equality (the set a class matches with ``i``).

    A negated class ``[^…]`` with ``i`` is the complement of the closure of its contents.
    Membership of every cased character is tested in one ``regex`` scan (C), so a class
    costs well under a millisecond; results are cached (keys repeat classes).
    """
    body = cs.emit()
    if body == "(?!)":
        return cs
    import regex  # type: ignore[import-untyped,unused-ignore]

    member = regex.compile(body, regex.V0)
    groups = _groups(unicode=unicode)
    text, owner = _members(unicode=unicode)
    counts: dict[int, int] = {}
    for m in member.finditer(text):
        g = owner[m.start()]
        counts[g] = counts.get(g, 0) + 1
    extra: list[tuple[int, int]] = []
    for g, n in counts.items():
        group = groups[g]
        if n < len(group):
            extra.extend((c, c) for c in group if member.match(chr(c)) is None)
    if not extra:
        return cs
    return CharSet(ranges=normalize(cs.ranges + tuple(extra)), props=cs.props)
