"""The CLI's lazily read local zone answers as the zone itself, DST folds and gaps included."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo.cli._clock import LocalZone

zoneinfo = pytest.importorskip("zoneinfo")

ZONES = ("Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata")


def _zone(name: str) -> object:
    try:
        return zoneinfo.ZoneInfo(name)
    except zoneinfo.ZoneInfoNotFoundError:
        pytest.skip(f"no IANA data for {name}")


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(ZONES),
    instant=st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2040, 1, 1)),
    wall=st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(2040, 1, 1)),
    fold=st.sampled_from((0, 1)),
    step=st.integers(min_value=-(10**8), max_value=10**8),
)
def test_the_lazy_zone_is_the_zone(
    name: str,
    instant: datetime,
    wall: datetime,
    fold: int,
    step: int,
) -> None:
    real = _zone(name)
    with pytest.MonkeyPatch.context() as m:
        m.setenv("TZ", name)
        lazy = LocalZone()
        utc = instant.replace(tzinfo=UTC)
        ours, theirs = utc.astimezone(lazy), utc.astimezone(real)  # type: ignore[arg-type]
        assert ours.replace(tzinfo=None) == theirs.replace(tzinfo=None)
        assert (ours.fold, ours.utcoffset(), ours.tzname(), ours.dst()) == (
            theirs.fold,
            theirs.utcoffset(),
            theirs.tzname(),
            theirs.dst(),
        )
        assert ours.tzinfo is lazy
        a = wall.replace(tzinfo=lazy, fold=fold)
        b = wall.replace(tzinfo=real, fold=fold)  # type: ignore[arg-type]
        assert (a.utcoffset(), a.tzname(), a.dst()) == (b.utcoffset(), b.tzname(), b.dst())
        later = timedelta(seconds=step)
        assert (a + later) - ours == (b + later) - theirs  # same zone: wall-clock arithmetic
        assert ((a + later) < ours) is ((b + later) < theirs)
        assert a.astimezone(UTC) == b.astimezone(UTC)
        assert a.timestamp() == b.timestamp()
        assert format(a, "%Y-%m-%d %H:%M:%S %z %Z") == format(b, "%Y-%m-%d %H:%M:%S %z %Z")


def test_the_zone_is_read_on_first_use_only(monkeypatch: pytest.MonkeyPatch) -> None:
    _zone("Europe/Berlin")
    monkeypatch.setenv("TZ", "Europe/Berlin")
    lazy = LocalZone()
    monkeypatch.setenv("TZ", "America/New_York")  # not read yet: the first use decides
    assert lazy.tzname(datetime(2025, 1, 1)) == "EST"
    monkeypatch.setenv("TZ", "Europe/Berlin")
    assert lazy.tzname(datetime(2025, 1, 1)) == "EST"
    assert "America/New_York" in repr(lazy)
