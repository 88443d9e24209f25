"""``--now`` and ``--tz``: the clock and time zone macros read (the real ones by default)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, tzinfo

from worldinfo.macros.context import system_clock


class ClockError(ValueError):
    """``--now`` or ``--tz`` could not be used (the message says why)."""


def add_clock_options(p: argparse.ArgumentParser) -> None:
    """Add ``--now`` and ``--tz``."""
    p.add_argument(
        "--now",
        metavar="ISO",
        help="the time macros see, e.g. 2025-03-14T15:09:26Z (default: the system clock)",
    )
    p.add_argument(
        "--tz",
        metavar="ZONE",
        help="IANA time zone for time macros, e.g. Europe/Berlin (default: the system's)",
    )


def _local_zone() -> tzinfo:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    name = os.environ.get("TZ", "").lstrip(":")
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    try:
        with open("/etc/localtime", "rb") as f:
            return ZoneInfo.from_file(f, key="localtime")
    except (OSError, ValueError):
        zone = datetime.now().astimezone().tzinfo  # a fixed offset: right for "now"
        return zone if zone is not None else UTC


class LocalZone(tzinfo):
    """The system's time zone, read on first use: a scan without a time macro never reads
    it (nor imports ``zoneinfo``: start-up time). Every answer is the zone's own; the times
    it makes carry this object as their ``tzinfo``, as they would carry the zone."""

    def __init__(self) -> None:
        self._zone: tzinfo | None = None

    def zone(self) -> tzinfo:
        """The zone itself (``TZ``, else ``/etc/localtime``, else the current offset)."""
        if self._zone is None:
            self._zone = _local_zone()
        return self._zone

    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        return self.zone().utcoffset(dt)

    def dst(self, dt: datetime | None) -> timedelta | None:
        return self.zone().dst(dt)

    def tzname(self, dt: datetime | None) -> str | None:
        return self.zone().tzname(dt)

    def fromutc(self, dt: datetime) -> datetime:
        zone = self.zone()
        return zone.fromutc(dt.replace(tzinfo=zone)).replace(tzinfo=self)

    def __repr__(self) -> str:
        return f"LocalZone({self.zone()!r})"


def clock_from(args: argparse.Namespace) -> tuple[Callable[[], datetime], tzinfo]:
    """The clock and zone the command line asks for (raises ``ClockError``)."""
    tz_name = getattr(args, "tz", None)
    if tz_name:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            tz: tzinfo = ZoneInfo(tz_name)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ClockError(
                f"--tz {tz_name}: unknown time zone (no IANA data? pip install tzdata)"
            ) from exc
    else:
        tz = LocalZone()
    now_text = getattr(args, "now", None)
    if not now_text:
        return system_clock, tz
    try:
        now = datetime.fromisoformat(now_text)
    except ValueError as exc:
        raise ClockError(f"--now {now_text}: not an ISO 8601 date and time") from exc
    if now.tzinfo is None:
        now = now.replace(tzinfo=tz)  # a wall time in the chosen zone
    return (lambda: now), tz
