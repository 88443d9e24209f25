"""What a request cost in its worker, sent back in a ``Server-Timing`` header.

Every response carries ``Server-Timing`` (the W3C header browsers' developer tools show), in
milliseconds: ``total`` (wall, from routing the request to its response object), ``work``
and ``work-cpu`` (the request's work in the pool thread: wall, and that thread's CPU time)
and, for a request that scanned, ``scan`` and ``scan-cpu`` (``Session.generate`` alone). A
client measuring latency sees where it went without a profiler: ``work - scan`` is what the
server adds around the library's own generate (the session fetch, persistence, encoding),
``total - work`` the wait for a thread, the session's lock and the body.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

HEADER = "server-timing"


class RequestTiming:
    """One request's figures, in seconds (filled in as the request goes)."""

    __slots__ = ("scan", "scan_cpu", "start", "work", "work_cpu")

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.work: float | None = None
        self.work_cpu: float | None = None
        self.scan: float | None = None
        self.scan_cpu: float | None = None

    def header(self) -> str:
        """The ``Server-Timing`` value (durations in milliseconds)."""
        parts = [("total", time.perf_counter() - self.start)]
        for name, value in (
            ("work", self.work),
            ("work-cpu", self.work_cpu),
            ("scan", self.scan),
            ("scan-cpu", self.scan_cpu),
        ):
            if value is not None:
                parts.append((name, value))
        return ", ".join(f"{name};dur={value * 1000:.3f}" for name, value in parts)


CURRENT: ContextVar[RequestTiming | None] = ContextVar("worldinfo_request_timing", default=None)
"""The timing of the request the running task serves (set by the HTTP layer)."""


class ScanClock:
    """Times ``Session.generate`` in whichever pool thread runs it."""

    def __init__(self) -> None:
        self._local = threading.local()

    @contextmanager
    def scan(self) -> Iterator[None]:
        """Time the body as this thread's scan (wall and thread CPU)."""
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            self._local.last = (time.perf_counter() - wall, time.thread_time() - cpu)

    def take(self) -> tuple[float, float] | None:
        """This thread's last scan since the previous ``take`` (``None``: none)."""
        last: tuple[float, float] | None = getattr(self._local, "last", None)
        self._local.last = None
        return last

    @contextmanager
    def work(self, timing: RequestTiming | None) -> Iterator[None]:
        """Time the body as the request's work, and collect its scan into ``timing``."""
        self.take()
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            if timing is not None:
                timing.work = time.perf_counter() - wall
                timing.work_cpu = time.thread_time() - cpu
                scanned = self.take()
                if scanned is not None:
                    timing.scan, timing.scan_cpu = scanned
