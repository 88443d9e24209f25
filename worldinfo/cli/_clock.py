"""``--now`` and ``--tz``: the clock and time zone macros read (the real ones by default)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

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


def clock_from(args: argparse.Namespace) -> tuple[Callable[[], datetime], tzinfo]:
    """The clock and zone the command line asks for (raises ``ClockError``)."""
    tz_name = getattr(args, "tz", None)
    if tz_name:
        try:
            tz: tzinfo = ZoneInfo(tz_name)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ClockError(
                f"--tz {tz_name}: unknown time zone (no IANA data? pip install tzdata)"
            ) from exc
    else:
        tz = _local_zone()
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
