"""Prompt assembly from the activated entries (R67-R71 and the 1.15 outlets)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import islice, repeat
from operator import ge, itemgetter

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo._record import field, record
from worldinfo.engine.fast.entry_facts import AT_DEPTH, NO_BUCKET, OUTLET, Facts
from worldinfo.engine.fast.recent import Recent
from worldinfo.result import DepthGroup, ExampleEntry
from worldinfo.types import Position, RawEntry

RegexHook = Callable[[str, JSONValue], str]
"""Regex scripts with the WORLD_INFO placement: ``(content, depth or None) -> content``."""
_FRONT = frozenset(range(4))
"""The buckets of positions 0-3: ``before``, ``after``, ``an_top`` and ``an_bottom``."""
_ORDER = itemgetter(Facts._fields.index("order"))
_BUCKET = itemgetter(Facts._fields.index("bucket"))
_STR = frozenset({str})


@record(frozen=False, kw_only=False)
class Assembled:
    """The prompt pieces, built the way SillyTavern builds them."""

    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    examples: list[ExampleEntry] = field(default_factory=list)
    an_top: list[str] = field(default_factory=list)
    an_bottom: list[str] = field(default_factory=list)
    depth: list[tuple[JSONValue, JSONValue, list[str]]] = field(default_factory=list)
    outlets: dict[str, list[str]] = field(default_factory=dict)

    def depth_groups(self) -> tuple[DepthGroup, ...]:
        """The at-depth groups in creation order."""
        return tuple(DepthGroup(depth=d, role=r, entries=tuple(e)) for d, r, e in self.depth)

    def outlet_map(self) -> dict[str, tuple[str, ...]]:
        """Outlet name -> contents, names in JavaScript key order."""
        return {k: tuple(self.outlets[k]) for k in _js.js_key_order(self.outlets)}


def assemble(
    activated: Sequence[RawEntry],
    *,
    regex_hook: RegexHook | None = None,
    facts: Sequence[Facts | None] | None = None,
    recent: Recent[object] | None = None,
    positions: Sequence[int | None] = (),
) -> Assembled:
    """Bucket the activated entries by position, in SillyTavern's order (R67-R70).

    ``facts``: the prepared facts of each entry (fast path; ``None`` where not prepared).
    ``recent``: pieces assembled by recent scans of the plan, by the ``positions`` of the
    entries and their contents (which decide everything read here when there is no hook);
    the pieces returned from there are shared: read them, never change them.
    """
    if facts is not None and regex_hook is None:
        contents = list(map(dict.get, activated, repeat("content"), repeat("")))
        if set(map(type, contents)) <= _STR:  # ``True`` and ``1`` would be the same key

            def make() -> Assembled:
                got = _assemble_usual(contents, facts)
                return _assemble_facts(activated, facts, None) if got is None else got

            if recent is None or None in positions:
                return make()
            got = recent.get((tuple(positions), tuple(contents)), make)
            if isinstance(got, Assembled):
                return got
    if facts is not None:
        return _assemble_facts(activated, facts, regex_hook)
    return _assemble_fields(activated, regex_hook)


def _assemble_fields(activated: Sequence[RawEntry], regex_hook: RegexHook | None) -> Assembled:
    """``assemble`` reading every field from the entries themselves."""
    out = Assembled()
    for entry in _js.sort_desc_by_order(list(activated)):
        position = entry.get("position", UNDEFINED)
        is_depth = _js.strict_eq(position, Position.AT_DEPTH.value)
        content: JSONValue = entry.get("content", "")
        if regex_hook is not None and isinstance(content, str):
            depth = _js.coalesce(entry.get("depth", UNDEFINED), 4) if is_depth else None
            content = regex_hook(content, depth)
        if not _js.truthy(content):
            continue
        text = content if isinstance(content, str) else _js.to_string(content)
        if _js.strict_eq(position, 0):
            out.before.insert(0, text)
        elif _js.strict_eq(position, 1):
            out.after.insert(0, text)
        elif _js.strict_eq(position, 5):
            out.examples.insert(0, ExampleEntry(position=0, content=text))
        elif _js.strict_eq(position, 6):
            out.examples.insert(0, ExampleEntry(position=1, content=text))
        elif _js.strict_eq(position, 2):
            out.an_top.insert(0, text)
        elif _js.strict_eq(position, 3):
            out.an_bottom.insert(0, text)
        elif is_depth:
            _add_depth(out, entry, text)
        elif _js.strict_eq(position, 7):
            name = entry.get("outletName", UNDEFINED)
            if _js.truthy(name):
                out.outlets.setdefault(_js.to_string(name), []).append(text)
    return out


def _assemble_facts(
    activated: Sequence[RawEntry], facts: Sequence[Facts | None], regex_hook: RegexHook | None
) -> Assembled:
    """``assemble`` from the entries' ``Facts`` when every entry has them and every order is
    finite, else from the entries' fields."""
    if None not in facts:
        ready: Sequence[Facts] = facts  # type: ignore[assignment]  # no ``None`` in it
        if all(map(math.isfinite, map(_ORDER, ready))):
            return _assemble_prepared(activated, ready, regex_hook)
    return _assemble_fields(activated, regex_hook)


def _assemble_usual(contents: list[str], facts: Sequence[Facts | None]) -> Assembled | None:
    """``assemble`` of the usual book, from the entries' string ``contents`` and ``Facts``
    with no hook: every entry with facts, finite orders, every entry into one of the four
    front lists; ``None`` for any other. Each step runs over all entries at once (no loop
    in Python): a later turn activates about the same 500 entries of a large book, in a new
    combination, which ``_assemble_prepared``'s loop over them costs twice this for."""
    rows: Sequence[Facts] = facts  # type: ignore[assignment]  # ``None`` raises below
    try:
        orders = list(map(_ORDER, rows))
    except TypeError:  # an entry without facts
        return None
    if not math.isfinite(sum(orders)) and not all(map(math.isfinite, orders)):
        return None  # (a finite sum has no infinity nor NaN in it; a large one may overflow)
    buckets = set(map(_BUCKET, rows))
    if not buckets <= _FRONT:
        return None
    out = Assembled()
    front = (out.before, out.after, out.an_top, out.an_bottom)  # buckets 0-3
    ranked: Sequence[int] = range(len(orders))
    if not all(map(ge, orders, islice(orders, 1, None))):  # else a stable sort keeps them
        ranked = sorted(ranked, key=orders.__getitem__, reverse=True)
        contents = list(map(contents.__getitem__, ranked))
    if len(buckets) == 1:
        texts = list(filter(None, contents))
        texts.reverse()
        front[buckets.pop()].extend(texts)
        return out
    for i, text in zip(ranked, contents, strict=True):
        if text:
            front[rows[i].bucket].append(text)
    for pieces in front:
        pieces.reverse()
    return out


def _assemble_prepared(
    activated: Sequence[RawEntry], facts: Sequence[Facts], regex_hook: RegexHook | None
) -> Assembled:
    """``assemble`` reading position, order, depth, role and outlet from the entries'
    ``Facts``; the contents come from the entries (substituted by the scan). Where
    ``assemble`` inserts at the front, this appends and reverses once at the end (the usual
    book goes to ``_assemble_usual`` first)."""
    out = Assembled()
    # ``sort_desc_by_order`` with every order finite: a stable sort on the number.
    ranked = sorted(range(len(facts)), key=[f.order for f in facts].__getitem__, reverse=True)
    front = (out.before, out.after, out.an_top, out.an_bottom)  # buckets 0-3
    contents: list[JSONValue] = [e.get("content", "") for e in activated]
    for i in ranked:
        f = facts[i]
        bucket = f.bucket
        text = contents[i]
        if regex_hook is not None and isinstance(text, str):
            text = regex_hook(text, f.depth if bucket == AT_DEPTH else None)
        if bucket == NO_BUCKET:  # the hook still saw it, as in ``assemble``
            continue
        if not isinstance(text, str):
            if not _js.truthy(text):
                continue
            text = _js.to_string(text)
        elif not text:
            continue
        if bucket < AT_DEPTH:  # the usual entry: one of the four lists
            front[bucket].append(text)
        elif bucket == AT_DEPTH:
            _append_depth(out, f, text)
        elif bucket == OUTLET:
            if f.outlet is not None:
                out.outlets.setdefault(f.outlet, []).append(text)
        else:
            out.examples.append(ExampleEntry(position=bucket - 5, content=text))
    for pieces in (out.before, out.after, out.an_top, out.an_bottom, out.examples):
        pieces.reverse()
    for _, _, texts in out.depth:
        texts.reverse()
    return out


def _append_depth(out: Assembled, f: Facts, text: str) -> None:
    for d, r, entries in out.depth:
        if _js.strict_eq(d, f.depth) and _js.strict_eq(r, f.role):  # as ``_add_depth``
            entries.append(text)
            return
    out.depth.append((f.raw_depth, f.role, [text]))


def _add_depth(out: Assembled, entry: RawEntry, text: str) -> None:
    depth = _js.coalesce(entry.get("depth", UNDEFINED), 4)
    role = _js.coalesce(entry.get("role", UNDEFINED), 0)
    for d, r, entries in out.depth:
        if _js.strict_eq(d, depth) and _js.strict_eq(r, role):
            entries.insert(0, text)
            return
    out.depth.append((entry.get("depth", UNDEFINED), role, [text]))


def authors_note(note: str, *, top: Sequence[str], bottom: Sequence[str]) -> str:
    """The note with WI top/bottom entries around it; one leading and one trailing newline
    removed (R71, Q25)."""
    text = "\n".join(top) + "\n" + note + "\n" + "\n".join(bottom)
    text = text.removeprefix("\n")
    text = text.removesuffix("\n")
    return text
