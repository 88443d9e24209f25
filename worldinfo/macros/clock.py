"""Time macros (M10): ``{{time}}`` ... ``{{datetimeformat}}``, ``{{time_UTC±N}}``, ``{{timeDiff}}``."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from worldinfo.macros.run import Pass, Run
from worldinfo.macros.scan import LazyPattern, re_sub, sub, two_lazy, until_brace

_FLAGS = re.IGNORECASE | re.ASCII


def _format(value: datetime, fmt: str) -> str:
    """``moment.format_moment``, its module imported when a time macro is met (start-up)."""
    from worldinfo.macros import moment

    return moment.format_moment(value, fmt)


def _formatted(name: str, fmt: str) -> Pass:
    pattern = LazyPattern(r"\{\{" + name + r"\}\}", _FLAGS)

    def apply(run: Run, text: str) -> str:
        return re_sub(
            pattern(), text, lambda _m: _format(run.now(), fmt), limit=run.settings.max_output
        )

    return Pass(source="{{" + name + "}}", apply=apply)


_DATETIMEFORMAT = LazyPattern(r"\{\{datetimeformat +", _FLAGS)


def _datetimeformat(run: Run, text: str) -> str:
    return sub(
        text,
        _DATETIMEFORMAT(),
        until_brace(allow_empty=True),
        lambda _s, g: _format(run.now(), g[0]),
        limit=run.settings.max_output,
    )


_UTC = LazyPattern(r"\{\{time_UTC([-+]\d+)\}\}", _FLAGS)


def _time_utc(run: Run, text: str) -> str:
    def one(m: re.Match[str]) -> str:
        n = int(m.group(1))
        minutes = n * 60 if abs(n) < 16 else n
        utc = run.now().astimezone(UTC)
        try:  # moment allows offsets beyond a day; only the wall time is shown
            local = utc + timedelta(minutes=minutes)
        except OverflowError:
            return "Invalid date"
        return _format(local, "LT")

    return re_sub(_UTC(), text, one, limit=run.settings.max_output)


_TIMEDIFF = LazyPattern(r"\{\{timeDiff::", _FLAGS)


def time_diff(run: Run, a: str, b: str) -> str:
    """``moment(a)`` minus ``moment(b)``, humanized with suffix (M10.4)."""
    from worldinfo.macros.moment import humanize, parse_moment  # only when used

    first, second = parse_moment(a, run.ctx.tz), parse_moment(b, run.ctx.tz)
    if first is None or second is None:
        return "Invalid date"
    ms = (first - second) // timedelta(milliseconds=1)
    return humanize(ms, with_suffix=True)


def _time_diff(run: Run, text: str) -> str:
    return sub(
        text,
        _TIMEDIFF(),
        two_lazy,
        lambda _s, g: time_diff(run, g[0], g[1]),
        limit=run.settings.max_output,
    )


TIME_PASSES = (
    _formatted("time", "LT"),
    _formatted("date", "LL"),
    _formatted("weekday", "dddd"),
    _formatted("isotime", "HH:mm"),
    _formatted("isodate", "YYYY-MM-DD"),
    Pass(source="{{datetimeformat +([^}]*)}}", apply=_datetimeformat),
)
TIME_UTC = Pass(source="{{time_UTC([-+]\\d+)}}", apply=_time_utc)
TIME_DIFF = Pass(source="{{timeDiff::(.*?)::(.*?)}}", apply=_time_diff)
