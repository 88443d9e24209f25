"""moment's ``duration.humanize()`` (locale ``en``, default thresholds)."""

from __future__ import annotations

from worldinfo._js import js_round

_WORDS = {
    "s": "a few seconds",
    "m": "a minute",
    "h": "an hour",
    "d": "a day",
    "M": "a month",
    "y": "a year",
}
_PLURAL = {"mm": "minutes", "hh": "hours", "dd": "days", "MM": "months", "yy": "years"}


def _relative(ms: float) -> str:
    ms = abs(ms)
    days = ms / 864e5
    months = days * 4800 / 146097
    seconds = js_round(ms / 1000)
    minutes = js_round(ms / 6e4)
    hours = js_round(ms / 36e5)
    rdays = js_round(days)
    rmonths = js_round(months)
    years = js_round(months / 12)
    steps: tuple[tuple[bool, str, float], ...] = (
        (seconds <= 44, "s", seconds),
        (minutes <= 1, "m", 1),
        (minutes < 45, "mm", minutes),
        (hours <= 1, "h", 1),
        (hours < 22, "hh", hours),
        (rdays <= 1, "d", 1),
        (rdays < 26, "dd", rdays),
        (rmonths <= 1, "M", 1),
        (rmonths < 11, "MM", rmonths),
        (years <= 1, "y", 1),
    )
    for ok, unit, n in steps:
        if ok:
            return _WORDS[unit] if unit in _WORDS else f"{int(n)} {_PLURAL[unit]}"
    return f"{int(years)} years"


def humanize(ms: float, *, with_suffix: bool) -> str:
    """Humanize a duration of ``ms`` milliseconds (``in 4 days`` / ``4 days ago`` with suffix).

    Args:
        ms: the signed duration.
        with_suffix: add ``in ``/`` ago`` (zero counts as past).

    Returns:
        The English phrase.
    """
    text = _relative(ms)
    if not with_suffix:
        return text
    return f"in {text}" if ms > 0 else f"{text} ago"
