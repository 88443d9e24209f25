"""Activation sources: what plugs into a scan besides the books (SillyTavern's extension seams)."""

from __future__ import annotations

from worldinfo.sources.base import (
    ActivationSource,
    LoadedLore,
    LoopState,
    NullSource,
    ScanContext,
)

__all__ = ["ActivationSource", "LoadedLore", "LoopState", "NullSource", "ScanContext"]
