"""The per-call working state of ``check``: what one evaluation reads and writes.

Created inside ``check`` and passed first to every phase helper; it never escapes the call.
What only the fast path needs lives on its own object (``fast``, a ``FastScan``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from worldinfo._js import JSONValue
from worldinfo._record import field, record
from worldinfo.engine.buffer import ScanBuffer
from worldinfo.engine.fast.scan import FastScan
from worldinfo.engine.timed_effects import TimedEffects, entry_key
from worldinfo.macros import Substitute
from worldinfo.trace import Trace, TraceEvent
from worldinfo.types import RawEntry, ScanState, Settings

TokenCounter = Callable[[str], int]


@record
class CharacterIdentity:
    """What character filters see: the avatar file name without extension and tag ids."""

    file_name: str
    avatar: str = ""
    tags: tuple[str, ...] = ()


@record(frozen=False, kw_only=False)
class WorkingState:
    """The per-call working state; created inside ``check`` and never escapes it."""

    settings: Settings
    buffer: ScanBuffer
    timed: TimedEffects
    entries: list[RawEntry]
    index: dict[int, int]
    rng: Callable[[], float]
    count_tokens: TokenCounter
    substitute: Substitute
    character: CharacterIdentity | None
    forced: Mapping[str, RawEntry]
    budget: int
    trigger: str
    state: ScanState = ScanState.INITIAL
    overflowed: bool = False
    activated: dict[str, RawEntry] = field(default_factory=dict)
    failed: set[int] = field(default_factory=set)
    all_activated_text: str = ""
    current_level: JSONValue = 0
    loop: int = 0
    trace: Trace | None = None
    pending_levels: list[JSONValue] = field(default_factory=list)
    fast: FastScan | None = None

    def note(
        self, entry: RawEntry, outcome: str, reason: str, detail: dict[str, JSONValue]
    ) -> None:
        """Record a traced decision about ``entry`` (tracing must be on)."""
        assert self.trace is not None
        event = TraceEvent(
            loop=self.loop,
            state=self.state.name,
            world=entry.get("world"),
            uid=entry.get("uid"),
            outcome=outcome,
            reason=reason,
            detail=detail,
        )
        self.trace.record(entry_key(entry), event)
