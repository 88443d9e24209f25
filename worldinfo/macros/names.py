"""The ``{{user}}``/``{{char}}``-only substituter and the ``Substitute`` plug-in point.

``Macros`` replaces ``{{user}}`` and ``{{char}}`` (any letter case), exactly what the World
Info golden oracle models; ``check()`` uses it by default. ``Session`` and the CLI use the
full evaluator (``worldinfo.macros.StMacros``). Front-ends with their own macro engine pass
any callable (``Substitute``): it receives the raw value and returns text. Like
SillyTavern, a falsy value gives ``""`` and a non-string value throws.

A substituter that sets ``identity_without_braces = True`` promises that a string for which
``may_have_macros`` is false (no ``{{`` and no legacy ``<USER>``-style macro) comes back
unchanged with no side effect; the engine then skips calling it for keys the key index has
already decided (the fast path).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from worldinfo._js import JSError, JSONValue, truthy
from worldinfo._record import record
from worldinfo.macros.scan import LazyPattern

Substitute = Callable[[JSONValue], str]
"""A macro substituter: raw JSON value in, substituted text out (may raise ``JSError``)."""


_ANGLE = LazyPattern(r"<(?:user|bot|char|charifnotgroup|group)>", re.IGNORECASE | re.ASCII)


def may_have_macros(text: str) -> bool:
    """Could a SillyTavern substituter change ``text``? (``{{`` or a legacy angle macro.)"""
    return "{{" in text or ("<" in text and _ANGLE().search(text) is not None)


def identity_without_braces(substitute: Substitute) -> bool:
    """Does ``substitute`` promise to return strings without ``{{`` unchanged, side-effect free?"""
    return getattr(substitute, "identity_without_braces", False) is True


_USER = LazyPattern(r"\{\{user\}\}", re.IGNORECASE)
_CHAR = LazyPattern(r"\{\{char\}\}", re.IGNORECASE)


@record
class Macros:
    """The default substituter: ``{{user}}`` -> ``user``, ``{{char}}`` -> ``char``.

    Args:
        user: the persona name (SillyTavern's ``name1``).
        char: the character name (``name2``; ``""`` without a character).
    """

    user: str = "User"
    char: str = ""

    @property
    def identity_without_braces(self) -> bool:
        """Always: text without ``{{`` is returned as is."""
        return True

    def __call__(self, value: JSONValue) -> str:
        """Substitute macros in ``value``."""
        if not truthy(value):
            return ""
        if not isinstance(value, str):
            raise JSError("content.includes is not a function")
        if "{{" not in value:
            return value
        value = _USER().sub(lambda _: self.user, value)
        return _CHAR().sub(lambda _: self.char, value)
