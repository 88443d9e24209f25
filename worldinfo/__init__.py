"""worldinfo: SillyTavern's World Info engine, faithfully in Python."""

from __future__ import annotations

from worldinfo.types import (
    Book,
    Character,
    Entry,
    Logic,
    Message,
    Origin,
    Persona,
    Position,
    Role,
    ScanState,
    Settings,
    Strategy,
)

__all__ = [
    "Book",
    "Character",
    "Entry",
    "Logic",
    "Message",
    "Origin",
    "Persona",
    "Position",
    "Role",
    "ScanState",
    "Settings",
    "Strategy",
]
