"""``Run``: the working state of one evaluation (and the nested card-field evaluations it
makes). Created by ``evaluate`` and never escapes it; side effects leave as a ``MacroState``."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from worldinfo._js import JSONValue
from worldinfo._record import field, record
from worldinfo.macros.context import MacroContext, MacroSettings, MacroState


class MacroError(Exception):
    """A replacement function threw; the evaluator undoes that pass (M2.7)."""


@record
class Call:
    """The options of one ``substituteParams`` call (M0.2)."""

    name1: str | None = None
    name2: str | None = None
    original: str | None = None
    group: str | None = None
    replace_card: bool = True


WI_CALL = Call()


@record
class Pass:
    """One (pattern, replacement) pair of the evaluator's list (M2.1).

    Args:
        source: the pattern, for ``caught_macro_errors`` and traces.
        apply: replaces every match in the text (may raise ``MacroError``).
        angle: an angle-bracket macro (runs even without ``{{`` in the text, M2.6).
        marker: lower-case text every match contains (default: the literal start of
            ``source``); a text without it is left alone without running ``apply``.
    """

    source: str
    apply: Callable[[Run, str], str]
    angle: bool = False
    marker: str = ""

    def __post_init__(self) -> None:
        if not self.marker:
            literal = re.match(r"[^()\[\\.*+?|]*", self.source)
            object.__setattr__(self, "marker", literal.group(0).lower() if literal else "")


@record
class Frame:
    """What the built-in passes of the current call read: its names, group and card prompt."""

    user: str = ""
    char: str = ""
    group: str = ""
    card_system: str = ""


@record(frozen=False, kw_only=False)
class Run:
    """Per-evaluation working state: the variables (copied on first write), outputs."""

    ctx: MacroContext
    settings: MacroSettings
    state: MacroState
    substitute: Callable[[Run, JSONValue, Call], str]
    local: dict[str, JSONValue] | None = None
    globals: dict[str, JSONValue] | None = None
    local_created: bool = False
    chat_id_hash: JSONValue = None
    banned: list[str] = field(default_factory=list)
    caught: list[str] = field(default_factory=list)
    depth: int = 0
    dice_rolled: int = 0
    picks_made: int = 0
    frame: Frame = Frame()
    _now: datetime | None = None

    def __post_init__(self) -> None:
        self.chat_id_hash = self.state.chat_id_hash

    def now(self) -> datetime:
        """The injected clock's "now" in the local zone, read once per evaluation."""
        if self._now is None:
            self._now = self.ctx.clock().astimezone(self.ctx.tz)
        return self._now

    def local_vars(self) -> dict[str, JSONValue]:
        """``chat_metadata.variables``, created on first access."""
        if self.local is None:
            self.local = dict(self.state.local) if self.state.local is not None else {}
            self.local_created = self.state.local is None
        return self.local

    def global_vars(self) -> dict[str, JSONValue]:
        """``extension_settings.variables.global``."""
        if self.globals is None:
            self.globals = dict(self.state.globals)
        return self.globals

    def result_state(self) -> MacroState:
        """The variables after the evaluation."""
        local = self.local if self.local is not None else self.state.local
        glob = self.globals if self.globals is not None else self.state.globals
        if not self.settings.variable_writes:  # the trust switch: nothing is stored
            local = self.state.local
        if not self.settings.global_writes:
            glob = self.state.globals
        return MacroState(local=local, globals=glob, chat_id_hash=self.chat_id_hash)
