"""Macro substitution: the part of SillyTavern's ``substituteParams`` the engine needs.

The default substituter replaces ``{{user}}`` and ``{{char}}`` (any letter case), exactly
what the golden oracle models. Front-ends with a fuller macro engine pass their own
callable to ``check``/``Session`` (``Substitute``): it receives the raw value and returns
text. Like SillyTavern, a falsy value gives ``""`` and a non-string value throws.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from worldinfo._js import JSError, JSONValue, truthy

Substitute = Callable[[JSONValue], str]
"""A macro substituter: raw JSON value in, substituted text out (may raise ``JSError``)."""

_USER = re.compile(r"\{\{user\}\}", re.IGNORECASE)
_CHAR = re.compile(r"\{\{char\}\}", re.IGNORECASE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Macros:
    """The default substituter: ``{{user}}`` -> ``user``, ``{{char}}`` -> ``char``.

    Args:
        user: the persona name (SillyTavern's ``name1``).
        char: the character name (``name2``; ``""`` without a character).
    """

    user: str = "User"
    char: str = ""

    def __call__(self, value: JSONValue) -> str:
        """Substitute macros in ``value``."""
        if not truthy(value):
            return ""
        if not isinstance(value, str):
            raise JSError("content.includes is not a function")
        if "{{" not in value:
            return value
        value = _USER.sub(lambda _: self.user, value)
        return _CHAR.sub(lambda _: self.char, value)
