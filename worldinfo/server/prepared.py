"""Per-worker caches: imported uploads by content hash, and warm scan caches by book set.

An upload is imported once per worker: the same bytes with the same trust give the same
``Imported`` (the same ``Book`` objects), so the engine's ``ScanCache`` -- which keys on the
identity of those objects -- stays warm across requests. Scan caches are not shared by two
requests at once: each request checks one out of a small pool for its set of books and
returns it when done.

``Heap`` keeps what was prepared out of the cycle collector's way: a worker holds the large
book's entries, plans and indexes (hundreds of thousands of objects), and a full collection
walked them all in the middle of whichever request triggered it (about 40-70 ms, a p99 of
its own); and it lets the youngest generation grow larger than Python's default of 700
objects: a scan of that book keeps more than 700 containers alive at once, so a collection
ran during nearly every scan, found nothing to free and cost about 2 ms.
"""

from __future__ import annotations

import gc
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from worldinfo.engine.fast.cache import ScanCache
from worldinfo.importers import Imported

MAX_UPLOADS = 64
MAX_POOLS = 64
MAX_IDLE = 8
YOUNG = 20_000
"""The collector's first threshold in a worker (net container allocations between runs)."""
UploadKey = tuple[str, bool]
"""``(sha256 of the bytes, trust)``."""


class UploadCache:
    """Imported uploads by content hash and trust (least recently used dropped first).

    A key is imported once however many requests miss it at once: the first one imports
    and the others wait for it and share its ``Imported``. Each importing on its own gave
    every one of them its own ``Book`` objects (the sessions they parsed kept them), and the
    one scan cache of that book set then rebuilt its plan whenever the next scan came from
    a session holding the other copy (a 5,000-entry book's first scan, some 100 ms, on
    request after request, until each session happened to be parsed again).
    """

    def __init__(self, *, size: int = MAX_UPLOADS) -> None:
        self._items: OrderedDict[UploadKey, Imported] = OrderedDict()
        self._loading: dict[UploadKey, threading.Event] = {}
        self._size = size
        self._lock = threading.Lock()
        self.misses = 0
        self.evicted = 0

    def get(self, key: UploadKey, load: Callable[[], Imported]) -> Imported:
        """The cached import, or ``load()``'s (kept for next time); while another thread is
        importing ``key``, its import once it is done (or, if it failed, this one's)."""
        while True:
            with self._lock:
                hit = self._items.get(key)
                if hit is not None:
                    self._items.move_to_end(key)
                    return hit
                pending = self._loading.get(key)
                if pending is None:
                    done = self._loading[key] = threading.Event()
                    break
            pending.wait()
        try:
            imported = load()
            with self._lock:
                self.misses += 1
                self._items[key] = imported
                while len(self._items) > self._size:
                    self._items.popitem(last=False)
                    self.evicted += 1
            return imported
        finally:
            with self._lock:
                del self._loading[key]
            done.set()


class ScanCachePool:
    """Idle ``ScanCache`` objects per book set; one request uses a cache at a time."""

    def __init__(self) -> None:
        self._idle: OrderedDict[tuple[UploadKey, ...], list[ScanCache]] = OrderedDict()
        self._lock = threading.Lock()
        self.created = 0
        self.evicted = 0

    @contextmanager
    def checkout(self, key: tuple[UploadKey, ...]) -> Iterator[ScanCache]:
        """A warm cache for this book set if one is idle, else a new one."""
        with self._lock:
            idle = self._idle.get(key)
            if idle:
                cache = idle.pop()
            else:
                cache = ScanCache()
                self.created += 1
        try:
            yield cache
        finally:
            with self._lock:
                pool = self._idle.setdefault(key, [])
                self._idle.move_to_end(key)
                if len(pool) < MAX_IDLE:
                    pool.append(cache)
                else:
                    self.evicted += 1
                while len(self._idle) > MAX_POOLS:
                    self.evicted += len(self._idle.popitem(last=False)[1])


class Heap:
    """Moves what a worker prepared out of the cycle collector's generations (``gc.freeze``).

    It does nothing until ``activate`` (a worker process calls it: it changes the
    process's collector). Then ``settle(grown=..., dropped=...)``, called after each request
    with counters of what the worker's caches created and dropped, collects and freezes the
    heap whenever something was created: the collection is cheap (older objects are already
    frozen), and frozen objects are still freed by reference counting. A frozen reference
    cycle is not, so when a cache dropped something the heap is unfrozen and collected in
    full first (rare: the caches are bounded and evict least recently used).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
        self.active = False
        self.full = 0
        """How many full collections ``settle`` made (the first one included)."""

    def activate(self, *, young: int = YOUNG) -> None:
        """Manage this process's collector: ``young`` is its first threshold (the module)."""
        _, middle, old = gc.get_threshold()
        gc.set_threshold(max(young, 1), middle, old)
        self.active = True

    def settle(self, *, grown: tuple[int, ...], dropped: tuple[int, ...]) -> None:
        """Freeze the heap if the caches grew since the last call (see the class)."""
        if not self.active or (grown, dropped) == self._seen:
            return
        with self._lock:
            seen_grown, seen_dropped = self._seen
            if (grown, dropped) == self._seen:
                return
            if dropped != seen_dropped or not seen_grown:
                gc.unfreeze()
                self.full += 1
            gc.collect()
            gc.freeze()
            self._seen = (grown, dropped)
