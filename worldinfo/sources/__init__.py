"""Activation sources: what plugs into a scan besides the books (SillyTavern's extension seams)."""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from worldinfo.sources.base import (
        ActivationSource,
        LoadedLore,
        LoopState,
        NullSource,
        ScanContext,
    )

__all__ = ["ActivationSource", "LoadedLore", "LoopState", "NullSource", "ScanContext"]

if not TYPE_CHECKING:  # type checkers see the imports above, and no other attribute
    from worldinfo import _lazy

    # each name is worldinfo.sources.base's, read on first use: ActivationSource imports
    # typing, which a scan with NullSource alone never needs (start-up time)
    __getattr__ = _lazy.lazy_names(
        "worldinfo.sources", dict.fromkeys(__all__, "worldinfo.sources.base"), globals()
    )
