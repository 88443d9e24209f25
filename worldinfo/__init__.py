"""worldinfo: SillyTavern's World Info engine, faithfully in Python."""

from __future__ import annotations

__version__ = "0.1.0"
"""The package version; ``pyproject.toml`` reads it from here (single source)."""

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
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

_HOMES = {
    "ScanData": "worldinfo.engine.buffer",
    "BookSelection": "worldinfo.engine.gathering",
    "check": "worldinfo.engine.loop",
    "RegexLimits": "worldinfo.engine.regex_limits",
    "TimeoutMemo": "worldinfo.engine.regex_limits",
    "CharacterIdentity": "worldinfo.engine.state",
    "ScanResult": "worldinfo.result",
    "Session": "worldinfo.session",
    "ActivationSource": "worldinfo.sources.base",
    "NullSource": "worldinfo.sources.base",
    "Trace": "worldinfo.trace",
    "TrustPolicy": "worldinfo.trust",
    **dict.fromkeys(
        (
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
        ),
        "worldinfo.types",
    ),
}
"""Where each public name lives; ``import worldinfo`` loads none of them (start-up time)."""


if not TYPE_CHECKING:  # type checkers see the imports above, and no other attribute
    from worldinfo import _lazy

    __getattr__ = _lazy.lazy_names("worldinfo", _HOMES, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
