"""Record timestamps: SillyTavern ``send_date`` values in their various forms, ISO, epoch.

A record's timestamp is the wall-clock time the exchange happened, as a ``datetime``. Naive
values (SillyTavern's humanized strings, ISO strings without an offset, bare dates) are kept
naive: they are the time the user saw. Epoch numbers become UTC datetimes. The day of a
record, which date questions compare, is the date part of that value.

Accepted forms (``parse_timestamp``):

- ``datetime`` / ``date`` objects (a ``date`` means midnight of that day);
- epoch numbers or all-digit strings: milliseconds when >= 10^11 (SillyTavern 2023 files),
  seconds otherwise;
- ISO 8601 (``2023-04-27``, ``2023-04-27T15:14:00``, ``...Z``, ``...+02:00``, fractions);
- SillyTavern's humanized ``Month D, YYYY H:MMam`` (``April 27, 2023 3:14pm``, also with a
  space before am/pm or with seconds) and ``YYYY-M-D@HHhMMmSSs[NNNms]`` (also with spaces,
  as in ``2023-4-27 @15h 14m 30s 123ms``).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

MONTHS = {
    name: n
    for n, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        1,
    )
    for name in names
}
"""English month names and abbreviations -> month number."""

_HUMAN = re.compile(
    r"(?P<month>[A-Za-z]+)\.?\s+(?P<day>\d{1,2}),?\s+(?P<year>\d{4})"
    r"(?:\s+(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?\s*(?P<ampm>[AaPp][Mm])?)?$"
)
_ST_AT = re.compile(
    r"(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})\s*@\s*(?P<h>\d{1,2})h\s*"
    r"(?P<m>\d{1,2})m\s*(?P<s>\d{1,2})s(?:\s*(?P<ms>\d{1,3})ms)?$"
)
EPOCH_MS_FROM = 10**11
"""Epoch values at or above this are milliseconds (10^11 s is the year 5138)."""


class TimestampError(ValueError):
    """A value is not a timestamp in any accepted form."""


def _epoch(value: float) -> datetime:
    seconds = value / 1000 if abs(value) >= EPOCH_MS_FROM else value
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError) as exc:
        raise TimestampError(f"epoch value {value!r} is out of range") from exc


def _humanized(text: str) -> datetime | None:
    m = _HUMAN.match(text)
    if m is not None and m["month"].lower() in MONTHS:
        hour = int(m["h"] or 0)
        if m["ampm"]:
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if m["ampm"].lower() == "pm" else 0)
        return datetime(
            int(m["year"]),
            MONTHS[m["month"].lower()],
            int(m["day"]),
            hour,
            int(m["m"] or 0),
            int(m["s"] or 0),
        )
    m = _ST_AT.match(text)
    if m is not None:
        return datetime(
            int(m["year"]),
            int(m["month"]),
            int(m["day"]),
            int(m["h"]),
            int(m["m"]),
            int(m["s"]),
            int(m["ms"] or 0) * 1000,
        )
    return None


def parse_timestamp(value: object) -> datetime:
    """Return the ``datetime`` of a timestamp value (forms: see the module docstring).

    Args:
        value: a ``send_date`` value, an ISO string, an epoch number, a date or datetime.

    Returns:
        The timestamp (naive for naive inputs, UTC for epoch numbers).

    Raises:
        TimestampError: the value is in no accepted form, or names an impossible date.
    """
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, bool):
        raise TimestampError(f"not a timestamp: {value!r}")
    if isinstance(value, int | float):
        return _epoch(value)
    if not isinstance(value, str):
        raise TimestampError(f"not a timestamp: {type(value).__name__}")
    text = value.strip()
    if text.isdigit() and text.isascii():
        return _epoch(int(text))
    try:
        found = _humanized(text)
    except ValueError as exc:
        raise TimestampError(f"not a valid date: {value!r} ({exc})") from exc
    if found is not None:
        return found
    try:
        return datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        raise TimestampError(f"not a timestamp in any accepted form: {value!r}") from None


def optional_timestamp(value: object) -> datetime | None:
    """``parse_timestamp`` for values that may be absent: ``None`` and ``""`` give ``None``."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return parse_timestamp(value)
