"""What a scan returns (``checkWorldInfo``'s result, plus the state SillyTavern writes)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from worldinfo._js import UNDEFINED, JSONValue, canonical
from worldinfo._record import field, record
from worldinfo.trace import Trace


@record
class DepthGroup:
    """Entries injected at one depth with one role; ``depth`` may be JavaScript ``undefined``."""

    depth: JSONValue
    role: JSONValue
    entries: tuple[str, ...]

    def to_json(self) -> dict[str, JSONValue]:
        """The group as SillyTavern records it (``depth`` omitted when undefined)."""
        out: dict[str, JSONValue] = {"entries": list(self.entries), "role": self.role}
        if self.depth is not UNDEFINED:
            out["depth"] = self.depth
        return out


@record
class ExampleEntry:
    """An example-message entry: ``position`` 0 before the examples, 1 after."""

    position: int
    content: str


@record
class ScanResult:
    """The outcome of one World Info scan.

    ``activated`` holds the activated entry objects in activation order (fields as used by
    the scan, with macro-substituted ``content``, plus ``world``, ``hash``, ``decorators``).
    ``timed_world_info`` is the new ``chat_metadata.timedWorldInfo``. ``an_prompt`` is the
    Author's Note SillyTavern writes back (``None`` when the note was not due or the scan had
    no entries). ``error`` is set, and nothing else is meaningful, where SillyTavern throws.
    """

    _activated: tuple[Mapping[str, JSONValue], ...] = field(default=(), repr=False)
    _finish: Callable[[], tuple[Mapping[str, JSONValue], ...]] | None = field(
        default=None, repr=False, compare=False
    )
    """Gives the activated entries their ``hash`` on first read and returns the entries to
    hand out (``None``: done)."""
    before: str = ""
    after: str = ""
    depth: tuple[DepthGroup, ...] = ()
    an_before: tuple[str, ...] = ()
    an_after: tuple[str, ...] = ()
    examples: tuple[ExampleEntry, ...] = ()
    outlets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    an_prompt: str | None = None
    timed_world_info: Mapping[str, JSONValue] = field(default_factory=dict)
    scan_loops: int = 0
    forced_consumed: bool = True
    warnings: tuple[str, ...] = ()
    error: str | None = None
    trace: Trace | None = None

    @property
    def activated(self) -> tuple[Mapping[str, JSONValue], ...]:
        """The activated entry objects, in activation order (see the class docstring)."""
        finish = self._finish
        if finish is not None:
            object.__setattr__(self, "_activated", finish())
            object.__setattr__(self, "_finish", None)
        return self._activated

    @property
    def activated_keys(self) -> list[tuple[JSONValue, JSONValue]]:
        """``(world, uid)`` of every activated entry, in activation order."""
        return [(e.get("world"), e.get("uid")) for e in self._activated]  # no hash needed

    @property
    def activated_titles(self) -> list[str]:
        """The title (``comment``) of every activated entry, in activation order."""
        return [str(e.get("comment") or "") for e in self._activated]  # no hash needed

    def to_json(self) -> dict[str, JSONValue]:
        """The result in the golden cases' field names, canonicalised (sorted keys)."""
        if self.error is not None:
            return {"error": self.error}
        out: dict[str, JSONValue] = canonical(
            {
                "activated": [{"world": w, "uid": u} for w, u in self.activated_keys],
                "before": self.before,
                "after": self.after,
                "depth": [g.to_json() for g in self.depth],
                "an_before": list(self.an_before),
                "an_after": list(self.an_after),
                "em": [{"position": x.position, "content": x.content} for x in self.examples],
                "outlets": {k: list(v) for k, v in self.outlets.items()},
                "an_prompt": self.an_prompt,
                "scan_loops": self.scan_loops,
                "warnings": list(self.warnings),
            }
        )
        return out
