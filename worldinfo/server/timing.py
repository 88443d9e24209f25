"""What a request cost in its worker, sent back in a ``Server-Timing`` header.

Every response carries ``Server-Timing`` (the W3C header browsers' developer tools show), in
milliseconds, each phase present only when the request had it:

- ``total``: wall time from routing the request to its response object;
- ``queue``: from routing to the start of its work in a pool thread (reading the body,
  waiting behind the same session's earlier requests, waiting for a free thread);
- ``work`` and ``work-cpu``: the request's work in the pool thread, wall and that thread's
  CPU time;
- ``slot``: inside ``work``, the wait for this worker's scan slot (one scan at a time);
- ``db``: inside ``work``, the session's transaction: its read and its commit;
- ``scan`` and ``scan-cpu``: ``Session.generate`` alone, wall and CPU;
- ``encode``: the response body's JSON encoding (in the pool thread too);
- ``gc``: how long the cycle collector ran in this process while the request was served
  (any thread's collection stops them all; only in a worker, see ``prepared.Heap``).

So ``work - scan`` is what the server adds around the library's own generate, on the
request itself, and a slow request says which phase made it slow.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")
HEADER = "server-timing"
PHASES = ("queue", "work", "work-cpu", "slot", "db", "scan", "scan-cpu", "encode")
"""The header's phases after ``total``, in its order (``gc`` comes last)."""


class GcClock:
    """The cycle collector's recent pauses in this process (``gc.callbacks``)."""

    def __init__(self, *, keep: int = 256) -> None:
        self._pauses: deque[tuple[float, float]] = deque(maxlen=keep)
        self._started = 0.0
        self.installed = False

    def install(self) -> None:
        """Start recording (a worker calls it once)."""
        if not self.installed:
            gc.callbacks.append(self._on_gc)
            self.installed = True

    def uninstall(self) -> None:
        """Stop recording."""
        if self.installed:
            gc.callbacks.remove(self._on_gc)
            self.installed = False

    def _on_gc(self, phase: str, _info: dict[str, Any]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._started = now
        else:
            self._pauses.append((self._started, now))

    def paused(self, since: float, until: float) -> float:
        """Seconds the collector ran between ``since`` and ``until`` (``perf_counter``)."""
        total = 0.0
        for start, end in tuple(self._pauses):
            if end > since and start < until:
                total += min(end, until) - max(start, since)
        return total


class RequestTiming:
    """One request's figures, in seconds (filled in as the request goes)."""

    __slots__ = ("gc", "phases", "start")

    def __init__(self, gc_clock: GcClock | None = None) -> None:
        self.start = time.perf_counter()
        self.phases: dict[str, float] = {}
        self.gc = gc_clock

    def header(self) -> str:
        """The ``Server-Timing`` value (durations in milliseconds)."""
        now = time.perf_counter()
        parts = [("total", now - self.start)]
        parts += [(name, self.phases[name]) for name in PHASES if name in self.phases]
        if self.gc is not None and self.gc.installed:
            parts.append(("gc", self.gc.paused(self.start, now)))
        return ", ".join(f"{name};dur={value * 1000:.3f}" for name, value in parts)


CURRENT: ContextVar[RequestTiming | None] = ContextVar("worldinfo_request_timing", default=None)
"""The timing of the request the running task serves (set by the HTTP layer)."""


class ScanClock:
    """Times the phases of whichever request a pool thread runs (see the module)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def _phases(self) -> dict[str, float]:
        phases: dict[str, float] | None = getattr(self._local, "phases", None)
        if phases is None:
            phases = self._local.phases = {}
        return phases

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Add the body's wall time to this thread's phase ``name``."""
        wall = time.perf_counter()
        try:
            yield
        finally:
            phases = self._phases()
            phases[name] = phases.get(name, 0.0) + time.perf_counter() - wall

    @contextmanager
    def timed(self, name: str, cm: AbstractContextManager[T]) -> Iterator[T]:
        """``with cm``, its entry and its exit (a commit, say) timed as phase ``name``."""
        with self.phase(name):
            value = cm.__enter__()
        try:
            yield value
        except BaseException:
            with self.phase(name):
                if not cm.__exit__(*sys.exc_info()):
                    raise
        else:
            with self.phase(name):
                cm.__exit__(None, None, None)

    @contextmanager
    def scan(self) -> Iterator[None]:
        """Time the body as this thread's scan (wall and thread CPU)."""
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            phases = self._phases()
            phases["scan"] = time.perf_counter() - wall
            phases["scan-cpu"] = time.thread_time() - cpu

    @contextmanager
    def work(self, timing: RequestTiming | None) -> Iterator[None]:
        """Time the body as the request's work, and collect its phases into ``timing``."""
        self._local.phases = {}
        wall, cpu = time.perf_counter(), time.thread_time()
        if timing is not None:
            timing.phases["queue"] = wall - timing.start
        try:
            yield
        finally:
            phases = self._phases()
            self._local.phases = {}
            if timing is not None:
                timing.phases.update(phases)
                timing.phases["work"] = time.perf_counter() - wall
                timing.phases["work-cpu"] = time.thread_time() - cpu
