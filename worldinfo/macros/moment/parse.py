"""Parsing as ``moment(string)`` does (ISO 8601, RFC 2822, a subset of ``Date``'s fallback)
and SillyTavern's ``timestampToMoment`` for message dates."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo

from worldinfo._js import trim

_EXT = re.compile(
    r"^\s*((?:[+-]\d{6}|\d{4})-(?:\d\d-\d\d|W\d\d-\d|W\d\d|\d\d\d|\d\d))"
    r"(?:(T| )(\d\d(?::\d\d(?::\d\d(?:[.,]\d+)?)?)?)([+-]\d\d(?::?\d\d)?|\s*Z)?)?$",
    re.ASCII,
)
_BASIC = re.compile(
    r"^\s*((?:[+-]\d{6}|\d{4})(?:\d\d\d\d|W\d\d\d|W\d\d|\d\d\d|\d\d|))"
    r"(?:(T| )(\d\d(?:\d\d(?:\d\d(?:[.,]\d+)?)?)?)([+-]\d\d(?::?\d\d)?|\s*Z)?)?$",
    re.ASCII,
)
_DATES = (  # (pattern searched in the date part, fields, time allowed)
    (re.compile(r"([+-]\d{6})-(\d\d)-(\d\d)"), "ymd", True),
    (re.compile(r"(\d{4})-(\d\d)-(\d\d)"), "ymd", True),
    (re.compile(r"(\d{4})-W(\d\d)-(\d)"), "gwe", True),
    (re.compile(r"(\d{4})-W(\d\d)"), "gw", False),
    (re.compile(r"(\d{4})-(\d{3})"), "yj", True),
    (re.compile(r"(\d{4})-(\d\d)"), "ym", False),
    (re.compile(r"([+-]\d{6})(\d\d)(\d\d)"), "ymd", True),
    (re.compile(r"(\d{4})(\d\d)(\d\d)"), "ymd", True),
    (re.compile(r"(\d{4})W(\d\d)(\d)"), "gwe", True),
    (re.compile(r"(\d{4})W(\d\d)"), "gw", False),
    (re.compile(r"(\d{4})(\d{3})"), "yj", True),
    (re.compile(r"(\d{4})(\d\d)"), "ym", False),
    (re.compile(r"(\d{4})"), "y", False),
)
_TIME = re.compile(r"(\d\d):?(\d\d)?(?::?(\d\d)(?:[.,](\d+))?)?", re.ASCII)
_MONTHS = [m.lower() for m in calendar.month_name[1:]]
_RFC = re.compile(
    r"^(?:(Mon|Tue|Wed|Thu|Fri|Sat|Sun),?\s)?(\d{1,2})\s"
    r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s(\d{2,4})\s(\d\d):(\d\d)(?::(\d\d))?"
    r"\s(?:(UT|GMT|[ECMP][SD]T)|([Zz])|([+-]\d{4}))$",
    re.ASCII,
)
_RFC_ZONES = {"UT": 0, "GMT": 0, "EDT": -4, "EST": -5, "CDT": -5, "CST": -6}
_RFC_ZONES |= {"MDT": -6, "MST": -7, "PDT": -7, "PST": -8}
_NAMED = re.compile(
    r"^(?:[a-z]+,?\s+)?([a-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})(?:\s+(\d{1,2}):(\d\d)(?::(\d\d))?"
    r"\s*([ap]m)?)?$",
    re.ASCII | re.IGNORECASE,
)
_SLASHED = re.compile(
    r"^(\d{4})/(\d{1,2})/(\d{1,2})(?:\s+(\d{1,2}):(\d\d)(?::(\d\d))?)?$|"
    r"^(\d{1,2})/(\d{1,2})/(\d{4})(?:\s+(\d{1,2}):(\d\d)(?::(\d\d))?)?$",
    re.ASCII,
)
_ST_STAMP = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})@(\d{1,2})h(\d{1,2})m(\d{1,2})s(?:(\d{1,3})ms)?$"
)
_ST_HUMAN = re.compile(r"^([A-Za-z]+) (\d{1,2}), (\d{4}) (\d{1,2}):(\d\d) ?([ap]m)$", re.ASCII)


def _build(
    fields: tuple[int, ...],
    zone: tzinfo,
    *,
    hour: int = 0,
    minute: int = 0,
    sec: int = 0,
    ms: int = 0,
) -> datetime | None:
    y, mo, d = fields
    try:
        if hour == 24 and minute == sec == ms == 0:
            return datetime(y, mo, d, tzinfo=zone) + timedelta(days=1)
        return datetime(y, mo, d, hour, minute, sec, ms * 1000, tzinfo=zone)
    except (ValueError, OverflowError):
        return None


def _iso_date(part: str, *, timed: bool) -> tuple[int, int, int] | None:
    for pattern, fields, time_ok in _DATES:
        m = pattern.search(part)
        if m is None:
            continue
        if not fields or (timed and not time_ok):
            return None
        g = [int(x) for x in m.groups()]
        if fields in ("gw", "gwe"):
            try:
                day = date.fromisocalendar(g[0], g[1], g[2] if len(g) > 2 else 1)
            except ValueError:
                return None
            return day.year, day.month, day.day
        if fields == "yj":
            if not 1 <= g[1] <= (366 if calendar.isleap(g[0]) else 365) or g[0] < 1:
                return None
            day = datetime(g[0], 1, 1) + timedelta(days=g[1] - 1)
            return day.year, day.month, day.day
        return (g[0], g[1] if len(g) > 1 else 1, g[2] if len(g) > 2 else 1)
    return None


def _iso(text: str, local: tzinfo) -> datetime | None:
    m = _EXT.match(text) or _BASIC.match(text)
    if m is None:
        return None
    date_fields = _iso_date(m.group(1), timed=m.group(3) is not None)
    if date_fields is None:
        return None
    zone = local
    if m.group(4):
        z = m.group(4).strip()
        if z != "Z":
            digits = z.replace(":", "")
            mins = int(digits[1:3]) * 60 + (int(digits[3:5]) if len(digits) > 3 else 0)
            zone = timezone(timedelta(minutes=-mins if digits[0] == "-" else mins))
        else:
            zone = UTC
    if m.group(3) is None:
        return _build(date_fields, zone)
    t = _TIME.fullmatch(m.group(3))
    if t is None:
        return None
    hh, mm, ss, frac = t.groups()
    ms = int(float("0." + frac) * 1000) if frac else 0
    hour, minute, sec = int(hh), int(mm or 0), int(ss or 0)
    return _build(date_fields, zone, hour=hour, minute=minute, sec=sec, ms=ms)


def _rfc2822(text: str) -> datetime | None:
    text = re.sub(r"\([^()]*\)|[\n\t]", " ", text)
    m = _RFC.match(trim(re.sub(r"(\s\s+)", " ", text)))
    if m is None:
        return None
    wd, d, mon, y, hh, mm, ss, obs, _z, num = m.groups()
    year = int(y)
    year = 2000 + year if len(y) == 2 and year <= 49 else 1900 + year if year <= 999 else year
    mins = 0
    if obs:
        mins = _RFC_ZONES[obs] * 60
    elif num:
        mins = (int(num[1:3]) * 60 + int(num[3:5])) * (-1 if num[0] == "-" else 1)
    zone = timezone(timedelta(minutes=mins))
    month = _MONTHS.index(next(n for n in _MONTHS if n.startswith(mon.lower()))) + 1
    out = _build((year, month, int(d)), zone, hour=int(hh), minute=int(mm), sec=int(ss or 0))
    if out is not None and wd and out.strftime("%a") != wd:
        return None
    return out


def _month(name: str) -> int | None:
    name = name.lower()
    found = [i for i, n in enumerate(_MONTHS, 1) if len(name) >= 3 and n.startswith(name)]
    return found[0] if found else None


def _fallback(text: str, local: tzinfo) -> datetime | None:
    """The forms of V8's ``Date`` parser that shared books use (the rest: invalid)."""
    text = trim(text)
    m = _NAMED.match(text)
    if m is not None:
        month = _month(m.group(1))
        if month is None:
            return None
        hour = int(m.group(4) or 0)
        if m.group(7):
            if not 1 <= hour <= 12:
                return None
            hour = hour % 12 + (12 if m.group(7).lower() == "pm" else 0)
        fields = (int(m.group(3)), month, int(m.group(2)))
        return _build(
            fields, local, hour=hour, minute=int(m.group(5) or 0), sec=int(m.group(6) or 0)
        )
    s = _SLASHED.match(text)
    if s is None:
        return None
    g = s.groups()
    y, mo, d, hh, mm, ss = g[:6] if g[0] else (g[8], g[6], g[7], *g[9:12])
    return _build(
        (int(y), int(mo), int(d)), local, hour=int(hh or 0), minute=int(mm or 0), sec=int(ss or 0)
    )


def parse_moment(text: str, local: tzinfo) -> datetime | None:
    """``moment(text)``: ISO 8601, then RFC 2822, then the ``Date`` fallback; ``None`` when
    the result is invalid. Forms without an offset are local time."""
    return _iso(text, local) or _rfc2822(text) or _fallback(text, local)


def timestamp_to_moment(value: object, local: tzinfo) -> datetime | None:
    """SillyTavern's ``timestampToMoment`` for a message's ``send_date``; ``None``: invalid."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) or (
        isinstance(value, str) and value.isascii() and value.isdigit()
    ):
        try:
            return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=float(value))
        except (OverflowError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    iso = _iso(value, local)
    if iso is not None:
        return iso
    m = _ST_STAMP.match(value)
    if m is not None:
        y, mo, d, hh, mi, ss, ms = m.groups()
        fields = (int(y), int(mo), int(d))
        return _build(fields, UTC, hour=int(hh), minute=int(mi), sec=int(ss), ms=int(ms or 0))
    h = _ST_HUMAN.match(value)
    if h is not None:
        month = _month(h.group(1))
        hour = int(h.group(4))
        if month is None or not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if h.group(6) == "pm" else 0)
        return _build(
            (int(h.group(3)), month, int(h.group(2))), local, hour=hour, minute=int(h.group(5))
        )
    return None
