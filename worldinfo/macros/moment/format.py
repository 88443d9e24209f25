"""moment's ``format()`` token language, locale ``en`` (``LT``, ``Do``, ``wo``, ``X``, ``Z``...)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

_LONG = {
    "LTS": "h:mm:ss A",
    "LT": "h:mm A",
    "L": "MM/DD/YYYY",
    "LL": "MMMM D, YYYY",
    "LLL": "MMMM D, YYYY h:mm A",
    "LLLL": "dddd, MMMM D, YYYY h:mm A",
}
_LONG_RE = re.compile(r"(\[[^\[]*\])|(\\)?(LTS|LT|LL?L?L?|l{1,4})")
_TOKEN_RE = re.compile(
    r"\[[^\[]*\]|\\(.)|(Mo|MM?M?M?|Do|DDDo|DD?D?D?|ddd?d?|do?|w[o|w]?|W[o|W]?|Qo?|N{1,5}"
    r"|YYYYYY|YYYYY|YYYY|YY|y{2,4}|yo?|gg(ggg?)?|GG(GGG?)?|e|E|a|A|hh?|HH?|kk?|mm?|ss?"
    r"|S{1,9}|x|X|zz?|ZZ?|.)",
    re.DOTALL,
)
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
DEFAULT_FORMAT = "YYYY-MM-DDTHH:mm:ssZ"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _long(token: str) -> str:
    if token in _LONG:
        return _LONG[token]
    upper = _LONG[token.upper()]  # l, ll, lll, llll: the short forms of L...LLLL
    return re.sub(r"MMMM|MM|DD|dddd", lambda m: m.group(0)[1:], upper)


def _expand(fmt: str) -> str:
    for _ in range(5):
        new = _LONG_RE.sub(
            lambda m: m.group(0) if m.group(1) or m.group(2) else _long(m.group(3)), fmt
        )
        if new == fmt:
            break
        fmt = new
    return fmt


def ordinal(n: int) -> str:
    """moment's English ordinal: ``1st``, ``2nd``, ``11th``, ``23rd``."""
    b = n % 10
    suffix = "th" if (n % 100) // 10 == 1 else {1: "st", 2: "nd", 3: "rd"}.get(b, "th")
    return f"{n}{suffix}"


def _pad(n: int, width: int, *, sign: bool = False) -> str:
    body = str(abs(n)).rjust(width, "0")
    return ("-" if n < 0 else "+" if sign else "") + body


def _js_weekday(d: date) -> int:
    return (d.weekday() + 1) % 7


def _first_week_offset(year: int, dow: int, doy: int) -> int:
    fwd = 7 + dow - doy
    fwdlw = (7 + _js_weekday(date(year, 1, 1).replace(day=fwd)) - dow) % 7
    return -fwdlw + fwd - 1


def _weeks_in_year(year: int, dow: int, doy: int) -> int:
    days = 366 if date(year, 12, 31).timetuple().tm_yday == 366 else 365
    return (days - _first_week_offset(year, dow, doy) + _first_week_offset(year + 1, dow, doy)) // 7


def week_of_year(d: date, dow: int, doy: int) -> tuple[int, int]:
    """moment's ``weekOfYear``: ``(week, week_year)`` for first weekday ``dow``."""
    week = (d.timetuple().tm_yday - _first_week_offset(d.year, dow, doy) - 1) // 7 + 1
    if week < 1:
        return week + _weeks_in_year(d.year - 1, dow, doy), d.year - 1
    if week > _weeks_in_year(d.year, dow, doy):
        return week - _weeks_in_year(d.year, dow, doy), d.year + 1
    return week, d.year


def _offset(m: datetime, sep: str) -> str:
    off = m.utcoffset()
    minutes = int(off.total_seconds() // 60) if off is not None else 0
    sign = "-" if minutes < 0 else "+"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}{sep}{minutes % 60:02d}"


def _year(y: int) -> str:
    return _pad(y, 4) if y <= 9999 else "+" + str(y)


def _hour12(m: datetime) -> int:
    return m.hour % 12 or 12


def _fraction(m: datetime, n: int) -> str:
    ms = m.microsecond // 1000
    if n <= 3:
        return _pad(ms // 10 ** (3 - n), n)
    return _pad(ms * 10 ** (n - 3), n)


def _epoch_ms(m: datetime) -> int:
    return (m - _EPOCH) // timedelta(milliseconds=1)


Fn = Callable[[datetime], str]
_TOKENS: dict[str, Fn] = {
    "M": lambda m: str(m.month),
    "Mo": lambda m: ordinal(m.month),
    "MM": lambda m: _pad(m.month, 2),
    "MMM": lambda m: MONTHS[m.month - 1][:3],
    "MMMM": lambda m: MONTHS[m.month - 1],
    "D": lambda m: str(m.day),
    "Do": lambda m: ordinal(m.day),
    "DD": lambda m: _pad(m.day, 2),
    "DDD": lambda m: str(m.timetuple().tm_yday),
    "DDDo": lambda m: ordinal(m.timetuple().tm_yday),
    "DDDD": lambda m: _pad(m.timetuple().tm_yday, 3),
    "d": lambda m: str(_js_weekday(m)),
    "do": lambda m: ordinal(_js_weekday(m)),
    "dd": lambda m: WEEKDAYS[_js_weekday(m)][:2],
    "ddd": lambda m: WEEKDAYS[_js_weekday(m)][:3],
    "dddd": lambda m: WEEKDAYS[_js_weekday(m)],
    "e": lambda m: str(_js_weekday(m)),
    "E": lambda m: str(m.isoweekday()),
    "w": lambda m: str(week_of_year(m.date(), 0, 6)[0]),
    "wo": lambda m: ordinal(week_of_year(m.date(), 0, 6)[0]),
    "ww": lambda m: _pad(week_of_year(m.date(), 0, 6)[0], 2),
    "W": lambda m: str(m.isocalendar()[1]),
    "Wo": lambda m: ordinal(m.isocalendar()[1]),
    "WW": lambda m: _pad(m.isocalendar()[1], 2),
    "gg": lambda m: _pad(week_of_year(m.date(), 0, 6)[1] % 100, 2),
    "gggg": lambda m: _pad(week_of_year(m.date(), 0, 6)[1], 4),
    "ggggg": lambda m: _pad(week_of_year(m.date(), 0, 6)[1], 5),
    "GG": lambda m: _pad(m.isocalendar()[0] % 100, 2),
    "GGGG": lambda m: _pad(m.isocalendar()[0], 4),
    "GGGGG": lambda m: _pad(m.isocalendar()[0], 5),
    "Q": lambda m: str((m.month + 2) // 3),
    "Qo": lambda m: ordinal((m.month + 2) // 3),
    "Y": lambda m: _year(m.year),
    "YY": lambda m: _pad(m.year % 100, 2),
    "YYYY": lambda m: _pad(m.year, 4),
    "YYYYY": lambda m: _pad(m.year, 5),
    "YYYYYY": lambda m: _pad(m.year, 6, sign=True),
    "y": lambda m: str(m.year),
    "yo": lambda m: ordinal(m.year),
    "yy": lambda m: _pad(m.year, 2),
    "yyy": lambda m: _pad(m.year, 3),
    "yyyy": lambda m: _pad(m.year, 4),
    "N": lambda _m: "AD",
    "NN": lambda _m: "AD",
    "NNN": lambda _m: "AD",
    "NNNN": lambda _m: "Anno Domini",
    "NNNNN": lambda _m: "AD",
    "a": lambda m: "am" if m.hour < 12 else "pm",
    "A": lambda m: "AM" if m.hour < 12 else "PM",
    "H": lambda m: str(m.hour),
    "HH": lambda m: _pad(m.hour, 2),
    "h": lambda m: str(_hour12(m)),
    "hh": lambda m: _pad(_hour12(m), 2),
    "k": lambda m: str(m.hour or 24),
    "kk": lambda m: _pad(m.hour or 24, 2),
    "m": lambda m: str(m.minute),
    "mm": lambda m: _pad(m.minute, 2),
    "s": lambda m: str(m.second),
    "ss": lambda m: _pad(m.second, 2),
    "X": lambda m: str(_epoch_ms(m) // 1000),
    "x": lambda m: str(_epoch_ms(m)),
    "z": lambda _m: "",
    "zz": lambda _m: "",
    "Z": lambda m: _offset(m, ":"),
    "ZZ": lambda m: _offset(m, ""),
}


def _fraction_token(n: int) -> Fn:
    return lambda m: _fraction(m, n)


_TOKENS.update({"S" * n: _fraction_token(n) for n in range(1, 10)})


def _piece(m: datetime, token: str) -> str:
    fn = _TOKENS.get(token)
    if fn is not None:
        return fn(m)
    if re.match(r"\[[\s\S]", token):
        return re.sub(r"^\[|\]$", "", token)
    return token.replace("\\", "")


def format_moment(m: datetime, fmt: str) -> str:
    """``moment.format(fmt)`` for the local moment ``m`` (an aware datetime); an empty
    ``fmt`` is moment's default ``YYYY-MM-DDTHH:mm:ssZ``."""
    fmt = _expand(fmt or DEFAULT_FORMAT)
    return "".join(_piece(m, t.group(0)) for t in _TOKEN_RE.finditer(fmt))
