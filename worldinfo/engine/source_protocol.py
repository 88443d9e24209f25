"""``ActivationSource``: the protocol of the hooks in ``worldinfo.engine.source_hooks``.

Kept apart from the values the hooks receive because a runtime-checkable protocol needs
``typing`` at run time: the engine only names it in annotations, so a scan never imports
this module (start-up time); ``worldinfo.sources`` re-exports it on first use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from worldinfo._js import JSONValue
from worldinfo.types import Message

if TYPE_CHECKING:
    from worldinfo.engine.source_hooks import LoadedLore, LoopState, ScanContext
    from worldinfo.result import ScanResult


@runtime_checkable
class ActivationSource(Protocol):
    """An extra activation source plugged into ``Session`` (see the module docstring)."""

    def force_activate(self, context: ScanContext) -> Sequence[Mapping[str, JSONValue]]:
        """Return entry objects (each with ``world`` and ``uid``) to force on in this scan."""
        ...

    def entries_loaded(self, context: ScanContext, lore: LoadedLore) -> None:
        """Edit the loaded lore lists in place (add virtual entries, drop some)."""
        ...

    def scan_done(self, state: LoopState) -> None:
        """Observe or steer the scan after each loop."""
        ...

    def messages_changed(self, chat: Sequence[Message]) -> None:
        """The chat changed (messages appended or removed) outside a scan."""
        ...

    def scan_finished(self, context: ScanContext, result: ScanResult) -> None:
        """A scan finished (not called for dry runs)."""
        ...
