"""Prompt assembly from the activated entries (R67-R71 and the 1.15 outlets)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import field

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo._record import record
from worldinfo.result import DepthGroup, ExampleEntry
from worldinfo.types import Position, RawEntry

RegexHook = Callable[[str, JSONValue], str]
"""Regex scripts with the WORLD_INFO placement: ``(content, depth or None) -> content``."""


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


def assemble(activated: Sequence[RawEntry], *, regex_hook: RegexHook | None = None) -> Assembled:
    """Bucket the activated entries by position, in SillyTavern's order (R67-R70)."""
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
