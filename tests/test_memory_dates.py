"""Timestamps (``send_date`` forms) and English date phrases of the ranked memory mode."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from worldinfo.sources.date_phrases import find_date
from worldinfo.sources.timestamps import TimestampError, optional_timestamp, parse_timestamp

TODAY = date(2023, 5, 6)  # a Saturday


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2023-04-27", datetime(2023, 4, 27)),
        ("2023-04-27T15:14:00", datetime(2023, 4, 27, 15, 14)),
        ("2023-04-27T15:14:00.250Z", datetime(2023, 4, 27, 15, 14, 0, 250000, tzinfo=UTC)),
        (
            "2023-04-27T15:14:00+02:00",
            datetime(2023, 4, 27, 15, 14, tzinfo=timezone(timedelta(hours=2))),
        ),
        (1682608440000, datetime(2023, 4, 27, 15, 14, tzinfo=UTC)),  # epoch ms (ST 2023)
        ("1682608440000", datetime(2023, 4, 27, 15, 14, tzinfo=UTC)),
        (1682608440, datetime(2023, 4, 27, 15, 14, tzinfo=UTC)),  # epoch seconds
        (1682608440.5, datetime(2023, 4, 27, 15, 14, 0, 500000, tzinfo=UTC)),
        ("April 27, 2023 3:14pm", datetime(2023, 4, 27, 15, 14)),
        ("April 27, 2023 12:05 AM", datetime(2023, 4, 27, 0, 5)),
        ("Apr 27, 2023 11:59:30 pm", datetime(2023, 4, 27, 23, 59, 30)),
        ("April 27, 2023", datetime(2023, 4, 27)),
        ("2023-4-27@15h14m30s", datetime(2023, 4, 27, 15, 14, 30)),
        ("2023-4-27 @15h 14m 30s 123ms", datetime(2023, 4, 27, 15, 14, 30, 123000)),
        (date(2023, 4, 27), datetime(2023, 4, 27)),
    ],
)
def test_timestamp_forms(value: object, expected: datetime) -> None:
    assert parse_timestamp(value) == expected


@pytest.mark.parametrize(
    "value", ["yesterday", "April 31, 2023", "13:00", True, [2023], "2023-13-01", "Smarch 3, 2023"]
)
def test_bad_timestamps_are_typed_errors(value: object) -> None:
    with pytest.raises(TimestampError):
        parse_timestamp(value)


def test_absent_timestamps() -> None:
    assert optional_timestamp(None) is None
    assert optional_timestamp("  ") is None


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("On May 4th, I shared with you some problems", date(2023, 5, 4), date(2023, 5, 4)),
        ("What topics did we talk about on April 29th?", date(2023, 4, 29), date(2023, 4, 29)),
        ("what did I cook on the 30th of April", date(2023, 4, 30), date(2023, 4, 30)),
        ("May the 2nd", date(2023, 5, 2), date(2023, 5, 2)),
        ("on 2 May", date(2023, 5, 2), date(2023, 5, 2)),
        ("Sept. 4, 2021 was fun", date(2021, 9, 4), date(2021, 9, 4)),
        ("on 2022-12-31", date(2022, 12, 31), date(2022, 12, 31)),
        ("on December 25th", date(2022, 12, 25), date(2022, 12, 25)),  # latest one before today
        ("What did I do yesterday?", date(2023, 5, 5), date(2023, 5, 5)),
        ("the day before yesterday", date(2023, 5, 4), date(2023, 5, 4)),
        ("today I feel", TODAY, TODAY),
        ("three days ago", date(2023, 5, 3), date(2023, 5, 3)),
        ("10 days ago", date(2023, 4, 26), date(2023, 4, 26)),
        ("on Monday", date(2023, 5, 1), date(2023, 5, 1)),
        ("last Saturday", date(2023, 4, 29), date(2023, 4, 29)),  # not today itself
        ("last week", date(2023, 4, 24), date(2023, 4, 30)),
        ("this week", date(2023, 5, 1), TODAY),
        ("last month", date(2023, 4, 1), date(2023, 4, 30)),
        ("this month", date(2023, 5, 1), TODAY),
    ],
)
def test_date_spans(question: str, first: date, last: date) -> None:
    found = find_date(question, today=TODAY)
    assert found is not None and found.anchor == "span"
    assert (found.first_day, found.last_day) == (first, last)
    assert question[found.start : found.end] == found.phrase


@pytest.mark.parametrize(
    ("question", "anchor"),
    [
        ("What did we talk about in our first conversation?", "first"),
        ("the first time we met you said", "first"),
        ("when we first talked", "first"),
        ("in our last chat", "last"),
        ("the last time we spoke", "last"),
    ],
)
def test_conversation_anchors(question: str, anchor: str) -> None:
    found = find_date(question, today=TODAY)
    assert found is not None and found.anchor == anchor and found.first_day is None


@pytest.mark.parametrize(
    "question",
    [
        "A few days ago, I mentioned a park",
        "I recently went on a trip",
        "May I ask what you recommended?",
        "the other day you said",
        "February 30",  # no such day
        "Mayday",
    ],
)
def test_vague_or_invalid_phrases_are_not_dates(question: str) -> None:
    assert find_date(question, today=TODAY) is None


def test_leap_day_without_year_goes_back_to_a_leap_year() -> None:
    found = find_date("on February 29", today=TODAY)
    assert found is not None and found.first_day == date(2020, 2, 29)


def test_the_earliest_phrase_wins_and_can_be_removed() -> None:
    q = "Yesterday I told you what happened on May 4th"
    found = find_date(q, today=TODAY)
    assert found is not None and found.phrase == "Yesterday"
    assert "Yesterday" not in found.remove_from(q)


def test_only_the_head_of_a_huge_message_is_searched() -> None:
    from worldinfo.sources.date_phrases import MAX_SCAN

    assert find_date("on " * (MAX_SCAN // 3) + "yesterday", today=TODAY) is None
    found = find_date("yesterday " + "on " * 100_000, today=TODAY)
    assert found is not None and found.first_day == date(2023, 5, 5)
