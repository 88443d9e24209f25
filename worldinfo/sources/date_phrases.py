"""Date phrases in English questions: "on May 4th", "yesterday", "last week", "our first chat".

``find_date(question, today=...)`` returns the first date phrase of a question and the span
of days it names (inclusive), or ``None``. Relative phrases are resolved against ``today``
(the retriever passes the caller's ``now``, or the day of the newest stored exchange). What is
recognised, case-insensitively:

- absolute days: ``2023-05-04``; ``May 4``, ``May 4th``, ``May the 4th``, ``Sept. 4, 2023``;
  ``4 May``, ``the 4th of May``. Without a year, the latest such day on or before ``today``;
- ``today``, ``tonight``, ``this morning`` (also afternoon/evening), ``yesterday``,
  ``the day before yesterday``, ``N days ago`` (N in digits or one..ten);
- ``on Monday`` / ``last Monday``: the latest such weekday before ``today``;
- ``this week`` (Monday to today), ``last week`` (the Monday-Sunday week before),
  ``this month``, ``last month`` (calendar months);
- ``our first conversation`` (also chat/talk/session, ``the first time we talked/spoke/
  chatted/met``, ``when we first talked/met``) and ``our last conversation`` (also ``the last
  time we talked``): anchors resolved by the retriever to the first day with stored
  exchanges, or the latest such day before ``today``.

Only the first ``MAX_SCAN`` characters are searched (a question is short; this bounds the
time a hostile message can take). Vague phrases ("a few days ago", "recently", "the other day", "before") are deliberately not
dates: they would exclude the exchange the user means far more often than they would help.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Literal

from worldinfo._record import record
from worldinfo.sources.timestamps import MONTHS

Anchor = Literal["span", "first", "last"]
MAX_SCAN = 10_000
"""Characters of a question searched for a date phrase."""

_NUMBERS = {
    w: n
    for n, w in enumerate(
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"], 1
    )
}
_WEEKDAYS = {
    w: n
    for n, w in enumerate(
        ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    )
}
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(?P<year>\d{4}))?"
_TALK = r"(?:talked|spoke|chatted|met)"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(rf"(?<![\w-])(?:(?:on|in)\s+)?{pattern}(?![\w-])", re.IGNORECASE))
    for name, pattern in (
        ("iso", r"(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})"),
        ("day_month", rf"(?:the\s+)?{_DAY}\s+(?:of\s+)?(?P<month>{_MONTH})\.?{_YEAR}"),
        ("month_day", rf"(?P<month>{_MONTH})\.?\s+(?:the\s+)?{_DAY}{_YEAR}"),
        ("before_yesterday", r"the\s+day\s+before\s+yesterday"),
        ("yesterday", r"yesterday"),
        ("today", r"today|tonight|this\s+(?:morning|afternoon|evening)"),
        ("days_ago", rf"(?P<n>\d{{1,3}}|{'|'.join(_NUMBERS)})\s+days?\s+ago"),
        ("weekday", rf"(?:(?<=on\s)|last\s+)(?P<weekday>{'|'.join(_WEEKDAYS)})"),
        ("week", r"(?P<which>this|last)\s+week"),
        ("month", r"(?P<which>this|last)\s+month"),
        (
            "first",
            (
                rf"(?:our|the)\s+(?:very\s+)?first\s+(?:conversation|chat|talk|session|"
                rf"time\s+we\s+{_TALK})|when\s+we\s+first\s+{_TALK}"
            ),
        ),
        ("last", rf"(?:our|the)\s+last\s+(?:conversation|chat|talk|session|time\s+we\s+{_TALK})"),
    )
)


@record
class DateQuery:
    """A date phrase found in a question.

    Args:
        phrase: the matched text.
        start: its start offset in the question.
        end: its end offset.
        anchor: ``"span"`` (``first_day``..``last_day`` given), or ``"first"`` / ``"last"``
            (the first / latest conversation day, resolved against the stored exchanges).
        first_day: first day of the span (``None`` for the anchors).
        last_day: last day of the span, inclusive.
    """

    phrase: str
    start: int
    end: int
    anchor: Anchor
    first_day: date | None = None
    last_day: date | None = None

    def remove_from(self, question: str) -> str:
        """The question without the phrase (so its words are not searched for)."""
        return f"{question[: self.start]} {question[self.end :]}"


def _latest(month: int, day: int, today: date) -> date | None:
    """The latest valid ``month``/``day`` on or before ``today`` (looks back 8 years)."""
    for year in range(today.year, today.year - 9, -1):
        try:
            found = date(year, month, day)
        except ValueError:
            continue
        if found <= today:
            return found
    return None


def _absolute(m: re.Match[str], today: date) -> tuple[date, date] | None:
    month_text = m["month"]
    month = int(month_text) if month_text.isdigit() else MONTHS[month_text.lower()]
    day = int(m["day"])
    if m["year"]:
        try:
            found: date | None = date(int(m["year"]), month, day)
        except ValueError:
            return None
    else:
        found = _latest(month, day, today) if 1 <= month <= 12 else None
    return None if found is None else (found, found)


def _relative(name: str, m: re.Match[str], today: date) -> tuple[date, date] | None:
    day = timedelta(days=1)
    if name == "before_yesterday":
        return today - 2 * day, today - 2 * day
    if name == "yesterday":
        return today - day, today - day
    if name == "today":
        return today, today
    if name == "days_ago":
        n = m["n"].lower()
        back = today - (_NUMBERS[n] if n in _NUMBERS else int(n)) * day
        return back, back
    if name == "weekday":
        steps = (today.weekday() - _WEEKDAYS[m["weekday"].lower()] - 1) % 7 + 1
        return today - steps * day, today - steps * day
    if name == "week":
        monday = today - today.weekday() * day
        if m["which"].lower() == "this":
            return monday, today
        return monday - 7 * day, monday - day
    this_month = today.replace(day=1)
    if m["which"].lower() == "this":
        return this_month, today
    prev_end = this_month - day
    return prev_end.replace(day=1), prev_end


def find_date(question: str, *, today: date) -> DateQuery | None:
    """Return the first date phrase of ``question`` with its span of days, or ``None``.

    Args:
        question: the user's message.
        today: the reference day for relative phrases and year-less dates.

    Returns:
        The phrase found earliest in the text (ties: the longest), or ``None``.
    """
    found: list[tuple[int, int, DateQuery]] = []
    head = question[:MAX_SCAN]
    for name, pattern in _PATTERNS:
        for m in pattern.finditer(head):
            if name in ("first", "last"):
                anchor: Anchor = "first" if name == "first" else "last"
                query = DateQuery(phrase=m[0], start=m.start(), end=m.end(), anchor=anchor)
            else:
                absolute = "month" in m.re.groupindex
                days = _absolute(m, today) if absolute else _relative(name, m, today)
                if days is None:
                    continue
                query = DateQuery(
                    phrase=m[0],
                    start=m.start(),
                    end=m.end(),
                    anchor="span",
                    first_day=days[0],
                    last_day=days[1],
                )
            found.append((m.start(), -(m.end() - m.start()), query))
            break
    return min(found, key=lambda t: (t[0], t[1]))[2] if found else None
