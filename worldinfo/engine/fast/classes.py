"""Entry classes: the plan's rules applied once per distinct set of the values they read.

``build.build_plan`` asks ``Classes.of`` for the class of each plain entry's stored fields:
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
from collections.abc import Callable, Mapping, Sequence
from itertools import repeat

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo._record import record
from worldinfo.engine import entry_rules
from worldinfo.engine.fast.plan import Kind, Plan
from worldinfo.engine.fast.prepare import ABSENTS, FACT_FIELDS, Config, Facts, Prepare, facts
from worldinfo.engine.fast.slots import filtered, fixed_kind, waits
from worldinfo.engine.fast.stored import EVERY, NOT_PLAIN, StoredView, is_plain

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
    joins them (``changed``: the entries seen so far must be classified again).
    """

    def __init__(self, prepare: Prepare, plan: Plan) -> None:
        self._prepare = prepare
        self._plan = plan
        self._by_sig: dict[object, Class] = {}
        self._by_rows: dict[object, Class] = {}
        """``all_of``'s classes by the values of the key fields (``_rows``)."""
        self._loose: dict[tuple[Config, bool], Class] = {}
        self._configs: dict[Config, int] = {}
        self._fields: tuple[str, ...] = SIG_FIELDS
        self._getter: Callable[[Mapping[str, JSONValue]], tuple[JSONValue, ...]] | None = None
        self._missing: frozenset[str] = frozenset()
        self._boxes: tuple[str, ...] = ()
        self._shaped = False
        self._world = False
        self.sharing = True
        """``False`` once a rule read every field or one the stored fields lack: no entry
        is plain then."""
        self.changed = False
        """The key fields grew since this was last reset."""

    def of(self, data: Mapping[str, JSONValue], world: str) -> Class | None:
        """The class of a trusted entry's stored fields; ``None`` when the entry is not
        plain (its object must be built to apply the rules to)."""
        content = data.get("content")
        if type(content) is not str or content.startswith("@@") or not self.sharing:
            return None
        if not self._shaped:
            self._shape(data)
        getter = self._getter
        vals: tuple[JSONValue, ...] | None = None
        if getter is not None:
            try:
                vals = getter(data)
            except KeyError:
                vals = None
        if vals is None or not data.keys().isdisjoint(self._missing):
            if not is_plain(data):
                return None
            vals = tuple(map(data.get, self._fields, ABSENTS))
            sig: tuple[object, ...] = (False, vals, world if self._world else None)
        else:  # the fields that held a list or object in the first entry, by their text
            boxed = tuple(map(_frozen, map(data.get, self._boxes, ABSENTS)))
            sig = (True, vals, boxed, world if self._world else None)
        try:
            got = self._by_sig.get(sig)
        except TypeError:  # a list or object in a field: keyed by its text
            sig = (sig[0], tuple(map(_frozen, vals)), *sig[2:])
            got = self._by_sig.get(sig)
        if got is None:
            got = self._by_sig[sig] = self._new(data, world)
        return got

    def all_of(
        self, datas: Sequence[Mapping[str, JSONValue]], worlds: Sequence[str]
    ) -> list[Class | None]:
        """``of`` of each entry, column by column where the entries are alike: every
        ``content`` a string without decorators, every key field a scalar where the first
        entry has one, no missing field present (else entry by entry). Stops early when
        the key fields grew (``changed``)."""
        if not datas or not self.sharing:
            return list(map(self.of, datas, worlds))
        if not self._shaped:
            self._shape(datas[0])
        rows = self._rows(datas, worlds)
        if rows is None:
            return list(map(self.of, datas, worlds))
        by_rows = self._by_rows
        try:
            found: list[Class | None] = list(map(by_rows.get, rows))
        except TypeError:  # a list or object where the first entry holds a scalar
            return list(map(self.of, datas, worlds))
        if None in found:
            for pos in [p for p, c in enumerate(found) if c is None]:
                got = by_rows.get(rows[pos])
                if got is None:
                    got = self._new(datas[pos], worlds[pos])
                    if self.changed:
                        return found
                    by_rows[rows[pos]] = got
                found[pos] = got
        return found

    def _rows(
        self, datas: Sequence[Mapping[str, JSONValue]], worlds: Sequence[str]
    ) -> list[object] | None:
        """Each entry's values of the key fields (``None``: not all entries are alike)."""
        getter = self._getter
        if getter is None:
            return None
        try:
            contents = list(map(_CONTENT, datas))
            rows: list[object] = list(map(getter, datas))
        except KeyError:
            return None
        if set(map(type, contents)) != {str} or any(map(str.startswith, contents, _DECORATED)):
            return None
        if any(any(map(operator.contains, datas, repeat(f))) for f in self._missing):
            return None
        if self._boxes:
            boxed = operator.itemgetter(*self._boxes)
            try:
                boxes = list(map(boxed, datas))
            except KeyError:
                return None
            if len(self._boxes) == 1:
                rows = [(r, _frozen(b)) for r, b in zip(rows, boxes, strict=True)]
            else:
                rows = [(r, *map(_frozen, b)) for r, b in zip(rows, boxes, strict=True)]
        if self._world:
            rows = list(zip(rows, worlds, strict=True))
        return rows

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

    def _shape(self, data: Mapping[str, JSONValue]) -> None:
        """Read the fields of the first plain entry: the others most likely have the same
        (and a list or object where it has one, such as ``triggers: []``)."""
        self._shaped = True
        fields = [f for f in self._fields if f not in NOT_PLAIN]
        present = [f for f in fields if f in data]
        self._boxes = tuple(f for f in present if isinstance(data[f], (list, dict)))
        scalars = [f for f in present if f not in self._boxes]
        self._getter = operator.itemgetter(*scalars) if len(scalars) >= 2 else None
        self._missing = frozenset((*(f for f in fields if f not in present), *NOT_PLAIN))

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
            self._world = "world" in self._fields
            self._by_sig.clear()
            self._by_rows.clear()
            self._shaped = False
            self.changed = True
        return cls


_CONTENT = operator.itemgetter("content")
_DECORATED = repeat("@@")


def _frozen(value: JSONValue) -> object:
    """A hashable stand-in for a field value: lists and objects by their text."""
    return (type(value), repr(value)) if isinstance(value, (list, dict)) else value
