"""The parts of moment.js 2.30.1 (locale ``en``) SillyTavern's time macros use: ``format``,
parsing (ISO 8601, RFC 2822, SillyTavern's timestamps) and ``humanize``."""

from __future__ import annotations

from worldinfo.macros.moment.format import format_moment
from worldinfo.macros.moment.humanize import humanize
from worldinfo.macros.moment.parse import parse_moment, timestamp_to_moment

__all__ = ["format_moment", "humanize", "parse_moment", "timestamp_to_moment"]
