"""worldinfo: SillyTavern's World Info engine, faithfully in Python."""

from __future__ import annotations

__version__ = "0.1.0"
"""The package version; ``pyproject.toml`` reads it from here (single source)."""

from worldinfo.engine.buffer import ScanData
from worldinfo.engine.gathering import BookSelection
from worldinfo.engine.loop import check
from worldinfo.engine.regex_limits import RegexLimits, TimeoutMemo
from worldinfo.engine.state import CharacterIdentity
from worldinfo.result import ScanResult
from worldinfo.session import Session
from worldinfo.sources.base import ActivationSource, NullSource
from worldinfo.trace import Trace
from worldinfo.trust import TrustPolicy
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
    "ActivationSource",
    "Book",
    "BookSelection",
    "Character",
    "CharacterIdentity",
    "Entry",
    "Logic",
    "Message",
    "NullSource",
    "Origin",
    "Persona",
    "Position",
    "RegexLimits",
    "Role",
    "ScanData",
    "ScanResult",
    "ScanState",
    "Session",
    "Settings",
    "Strategy",
    "TimeoutMemo",
    "Trace",
    "TrustPolicy",
    "check",
]
