"""Entry classes: the plan's rules applied once per distinct set of the values they read.

``build.build_plan`` asks ``Classes.all_of`` for the class of each plain entry's stored fields:
entries whose ``SIG_FIELDS`` hold equal values share every outcome the plan takes from those
fields (scan configuration, key-rule context, fixed kind, waiting checks). The outcomes are
computed by the rule functions themselves (``entry_rules``, ``slots``) on the first entry of
a class. Python's ``==`` makes ``True == 1 == 1.0`` (and ``False == 0``), which JavaScript's
strict equality does not; sharing is still sound because every rule computed from these
fields reads them only through truthiness, ``== true``, ``??`` and ``Number()``, which
agree on such values (the scan-settings memo relied on this before).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo._record import record
from worldinfo.engine import entry_rules
from worldinfo.engine.fast.columns import ABSENT, Columns
from worldinfo.engine.fast.plan import Kind, Plan
from worldinfo.engine.fast.prepare import FACT_FIELDS, Config, Facts, Prepare, facts
from worldinfo.engine.fast.slots import filtered, fixed_kind, waits
from worldinfo.engine.fast.stored import EVERY, NOT_PLAIN, StoredView

SIG_FIELDS = (
    *FACT_FIELDS,
    "caseSensitive",
    "matchWholeWords",
    "disable",
    "constant",
    "delayUntilRecursion",
    "excludeRecursion",
    "triggers",
    "characterFilter",
    "decorators",
)
"""The fields the class outcomes are computed from (``Classes._new``) by the rules as they
are written; a field the rules read besides joins them."""


@record(eq=False)
class Class:
    """The outcomes shared by the entries of one class (``cid``: the scan configuration)."""

    cid: int
    delay: bool
    memo: dict[str, int] | None = None
    context: tuple[bool, bool] = (False, False)
    """``entry_rules.case_sensitive`` and ``whole_words``."""
    fixed: Kind | None = None
    waits: bool = False
    """``slots.waits`` or ``slots.filtered``: a ``GATED`` entry, whatever its keys."""
    leveled: bool = False
    """A truthy ``delayUntilRecursion`` (``gathering.delay_levels`` reads it)."""


class Classes:
    """The classes of one plan's plain entries, and the configurations they use.

    The fields a class is keyed by start as ``SIG_FIELDS``; the rules are run on a
    ``StoredView`` that records what they read, and a field read outside the key fields
    joins them (``changed``: the entries must be classified again).
    """

    def __init__(self, prepare: Prepare, plan: Plan) -> None:
        self._prepare = prepare
        self._plan = plan
        self._loose: dict[tuple[Config, bool], Class] = {}
        self._configs: dict[Config, int] = {}
        self._fields: tuple[str, ...] = SIG_FIELDS
        self.sharing = True
        """``False`` once a rule read every field or one the stored fields lack: no entry
        is plain then."""
        self.changed = False
        """The key fields grew since this was last reset."""

    def all_of(self, columns: Columns, worlds: Sequence[str]) -> list[Class | None]:
        """The class of each trusted entry's stored fields; ``None`` where the entry is not
        plain (its object must be built to apply the rules to). Entries whose key fields
        hold equal values (lists and objects by their text) share a class; a field that
        holds one value throughout is left out of the comparison. Stops early when the key
        fields grew (``changed``)."""
        n = columns.n
        if not n or not self.sharing:
            return [None] * n
        rows = self._rows(columns, worlds)
        plain = _plain(columns)
        if plain is not None:
            rows = [r if p else _NOT_PLAIN for r, p in zip(rows, plain, strict=True)]
        firsts: dict[object, int]
        if plain is None and rows.count(None) == n:  # every entry alike: one class
            firsts = {None: 0}
        else:
            firsts = dict(zip(reversed(rows), range(n - 1, -1, -1), strict=True))
        classes: dict[object, Class | None] = {_NOT_PLAIN: None}
        datas = columns.datas
        for pos in sorted(firsts.values()):
            if rows[pos] is not _NOT_PLAIN:
                classes[rows[pos]] = self._new(datas[pos], worlds[pos])
                if self.changed:
                    return [None] * n
        if len(classes) == 2:  # one class
            cls = next(c for c in classes.values() if c is not None)
            return [cls] * n if plain is None else [cls if p else None for p in plain]
        return list(map(classes.__getitem__, rows))

    def _rows(self, columns: Columns, worlds: Sequence[str]) -> Sequence[object]:
        """Each entry's values of the key fields that do not hold one value throughout."""
        names = [name for name in self._fields if name not in NOT_PLAIN]
        if _alike(columns, names) and ("world" not in names or _constant(worlds)):
            return [None] * columns.n
        varying: list[Sequence[object]] = []
        for name in self._fields:
            if name in NOT_PLAIN:  # a plain entry holds neither: its object's are fixed
                continue
            col: Sequence[object] = columns(name)
            if _constant(col):
                continue
            try:
                distinct = len(dict.fromkeys(col))
            except TypeError:  # a list or object: by its text
                col = list(map(_frozen, col))
                distinct = len(dict.fromkeys(col))
            if distinct > 1:
                varying.append(col)
        if "world" in self._fields:
            varying.append(worlds)
        if not varying:
            return [None] * columns.n
        return varying[0] if len(varying) == 1 else list(zip(*varying, strict=True))

    def loose(self, known: Facts) -> Class:
        """The class of an entry prepared on its own: its configuration and ``delay``."""
        key = (known.config, known.delay)
        got = self._loose.get(key)
        if got is None:
            got = self._loose[key] = Class(cid=self._cid(known), delay=known.delay)
        plan = self._plan
        plan.any_ignore_budget = plan.any_ignore_budget or known.ignore_budget
        plan.any_group = plan.any_group or known.group
        return got

    def _cid(self, known: Facts) -> int:
        plan = self._plan
        cid = self._configs.setdefault(known.config, len(self._configs))
        if cid == len(plan.by_needle):
            plan.by_needle.append({})
            plan.configs.append(known.config)
        plan.any_ignore_budget = plan.any_ignore_budget or known.ignore_budget
        plan.any_group = plan.any_group or known.group
        return cid

    def _new(self, data: Mapping[str, JSONValue], world: str) -> Class:
        """Apply the rules to the first entry of a class, through a recording view."""
        read: set[str] = set()
        entry = StoredView(data, world, read)
        prepare = self._prepare
        known = facts(entry)
        settings = prepare.settings
        context = (
            entry_rules.case_sensitive(entry, settings),
            entry_rules.whole_words(entry, settings),
        )
        cls = Class(
            cid=self._cid(known),
            delay=known.delay,
            memo=prepare.context(context),
            context=context,
            fixed=fixed_kind(entry),
            waits=waits(entry) or filtered(entry),
            leveled=_js.truthy(entry_rules.delay_level(entry)),
        )
        probe: set[str] = set()
        secondary = StoredView(data, world, probe)  # read per entry from the stored fields
        entry_rules.secondary_keys(secondary)
        entry_rules.selective_logic(secondary)
        if EVERY in read or not probe.isdisjoint((EVERY, *NOT_PLAIN)):
            self.sharing = False
            self.changed = True
        new = [f for f in sorted(read) if f not in self._fields]
        if new:
            self._fields = (*self._fields, *new)
            self.changed = True
        return cls


_NOT_PLAIN = object()
"""The row of an entry that is not plain."""


def _plain(columns: Columns) -> list[bool] | None:
    """Is each entry plain (``stored.is_plain``)? ``None``: every entry is."""
    contents: Sequence[JSONValue] = columns.loaded("content")  # any order: the common case
    held = [name for name in NOT_PLAIN if columns.held(name)]
    if not held and set(map(type, contents)) == {str}:
        blob = "\x00".join(contents)  # one search for a decorator line at any content's start
        if not blob.startswith("@@") and "\x00@@" not in blob:
            return None
    contents = columns("content")
    plain = [type(c) is str and not c.startswith("@@") for c in contents]
    for name in held:
        plain = [p and v is ABSENT for p, v in zip(plain, columns(name), strict=True)]
    return plain


def _alike(columns: Columns, names: list[str]) -> bool:
    """Do all entries hold the same scalars in the fields ``names`` (``False``: maybe
    not)? One ``itemgetter`` per entry for the fields the first entry holds, and a
    presence test for the others, instead of one column per field: books mostly repeat
    one set of scan settings."""
    datas = columns.stored  # the outcome does not depend on the order: read as loaded
    if not datas:
        return False
    first = datas[0]
    wanted = set(names)
    held = [name for name in first if name in wanted]  # its own key objects: found by identity
    if len(held) < 2 or any(map(columns.held, (n for n in names if n not in first))):
        return False
    try:
        rows = list(map(operator.itemgetter(*held), datas))
    except KeyError:  # some entry lacks a field
        return False
    if any(isinstance(v, (list, dict)) for v in rows[0]):  # compared by their text
        return False
    return rows.count(rows[0]) == len(rows)  # a list or object never equals a scalar


def _constant(col: Sequence[object]) -> bool:
    """Does ``col`` hold one value throughout, as the class key compares them (scalars by
    ``==``, lists and objects by their text)? Tested in C where that is exact: a scalar
    first value that every value equals (no list or object equals a scalar), or every
    value an empty list. ``False`` may also mean "not known"."""
    if not col:
        return True
    first = col[0]
    if not isinstance(first, (list, dict)):
        return col.count(first) == len(col)
    return type(first) is list and set(map(type, col)) == {list} and not any(col)


def _frozen(value: JSONValue) -> object:
    """A hashable stand-in for a field value: lists and objects by their text."""
    return (type(value), repr(value)) if isinstance(value, (list, dict)) else value
