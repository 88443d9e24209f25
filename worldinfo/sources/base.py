"""``NullSource``, and the ``ActivationSource`` protocol's names for the sources that implement it.

The protocol and the values its hooks receive are defined in ``worldinfo.engine.source_protocol``
and ``worldinfo.engine.source_hooks``
(the engine and ``Session`` call them); they are re-exported here, where sources import them.
With no source plugged in, or with ``NullSource``, nothing changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from worldinfo._js import JSONValue
from worldinfo.engine.source_hooks import LoadedLore, LoopState, ScanContext
from worldinfo.types import Message

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from worldinfo.engine.source_protocol import ActivationSource
    from worldinfo.result import ScanResult

__all__ = ["ActivationSource", "LoadedLore", "LoopState", "NullSource", "ScanContext"]


def __getattr__(name: str) -> object:
    """``ActivationSource``, imported (with ``typing``) when first read: start-up time."""
    if name != "ActivationSource":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from worldinfo.engine.source_protocol import ActivationSource

    globals()[name] = ActivationSource
    return ActivationSource


class NullSource:
    """An activation source that does nothing; subclass it and override what you need."""

    def force_activate(self, context: ScanContext) -> Sequence[Mapping[str, JSONValue]]:  # noqa: ARG002 (no-op hook)
        """Force nothing."""
        return ()

    def entries_loaded(self, context: ScanContext, lore: LoadedLore) -> None:
        """Leave the lore lists as they are."""

    def scan_done(self, state: LoopState) -> None:
        """Leave the scan as it is."""

    def messages_changed(self, chat: Sequence[Message]) -> None:
        """Ignore chat changes."""

    def scan_finished(self, context: ScanContext, result: ScanResult) -> None:
        """Ignore finished scans."""
