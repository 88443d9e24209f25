"""SillyTavern 1.15.0's macros: the legacy evaluator (``evaluate``, ``StMacros``) and the
``{{user}}``/``{{char}}``-only substituter (``Macros``) the World Info oracle models.

Modules: ``evaluator`` (pass order), ``env`` (names and card fields), ``builtins`` (angle,
instruct, utility, comments, banned), ``variables``, ``chance`` (roll, random, pick),
``chat_state``, ``clock`` and ``moment`` (time), ``scan`` (linear-time matching),
``context`` (inputs, state, settings), ``substituter`` (the stateful callable).
"""

from __future__ import annotations

from worldinfo.macros.context import (
    Card,
    Group,
    MacroContext,
    MacroSettings,
    MacroState,
    PowerUser,
)
from worldinfo.macros.evaluator import Evaluation, evaluate
from worldinfo.macros.names import Macros, Substitute, identity_without_braces
from worldinfo.macros.run import Call
from worldinfo.macros.substituter import StMacros

__all__ = [
    "Call",
    "Card",
    "Evaluation",
    "Group",
    "MacroContext",
    "MacroSettings",
    "MacroState",
    "Macros",
    "PowerUser",
    "StMacros",
    "Substitute",
    "evaluate",
    "identity_without_braces",
]
