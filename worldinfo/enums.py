"""SillyTavern's enumerations, with its numbers (re-exported by ``worldinfo.types``)."""

from __future__ import annotations

from enum import IntEnum


class Position(IntEnum):
    """``world_info_position``: where an activated entry's content goes."""

    BEFORE = 0
    AFTER = 1
    AN_TOP = 2
    AN_BOTTOM = 3
    AT_DEPTH = 4
    EM_TOP = 5
    EM_BOTTOM = 6
    OUTLET = 7


class Role(IntEnum):
    """``extension_prompt_roles``: the role of an at-depth injection."""

    SYSTEM = 0
    USER = 1
    ASSISTANT = 2


class Logic(IntEnum):
    """``world_info_logic``: how secondary keys combine."""

    AND_ANY = 0
    NOT_ALL = 1
    NOT_ANY = 2
    AND_ALL = 3


class Strategy(IntEnum):
    """``world_info_insertion_strategy``: how character and global books merge."""

    EVENLY = 0
    CHARACTER_FIRST = 1
    GLOBAL_FIRST = 2


class ScanState(IntEnum):
    """``scan_state``: what kind of pass runs next."""

    NONE = 0
    INITIAL = 1
    RECURSION = 2
    MIN_ACTIVATIONS = 3
