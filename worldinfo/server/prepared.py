"""Per-worker caches: imported uploads by content hash, and warm scan caches by book set.

An upload is imported once per worker: the same bytes with the same trust give the same
``Imported`` (the same ``Book`` objects), so the engine's ``ScanCache`` -- which keys on the
identity of those objects -- stays warm across requests. Scan caches are not shared by two
requests at once: each request checks one out of a small pool for its set of books and
returns it when done.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from worldinfo.engine.fast.cache import ScanCache
from worldinfo.importers import Imported

MAX_UPLOADS = 64
MAX_POOLS = 64
MAX_IDLE = 8
UploadKey = tuple[str, bool]
"""``(sha256 of the bytes, trust)``."""


class UploadCache:
    """Imported uploads by content hash and trust (least recently used dropped first)."""

    def __init__(self, *, size: int = MAX_UPLOADS) -> None:
        self._items: OrderedDict[UploadKey, Imported] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()
        self.misses = 0

    def get(self, key: UploadKey, load: Callable[[], Imported]) -> Imported:
        """The cached import, or ``load()``'s (kept for next time)."""
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit
        imported = load()
        with self._lock:
            self.misses += 1
            self._items[key] = imported
            while len(self._items) > self._size:
                self._items.popitem(last=False)
            return self._items[key]


class ScanCachePool:
    """Idle ``ScanCache`` objects per book set; one request uses a cache at a time."""

    def __init__(self) -> None:
        self._idle: OrderedDict[tuple[UploadKey, ...], list[ScanCache]] = OrderedDict()
        self._lock = threading.Lock()

    @contextmanager
    def checkout(self, key: tuple[UploadKey, ...]) -> Iterator[ScanCache]:
        """A warm cache for this book set if one is idle, else a new one."""
        with self._lock:
            idle = self._idle.get(key)
            cache = idle.pop() if idle else ScanCache()
        try:
            yield cache
        finally:
            with self._lock:
                pool = self._idle.setdefault(key, [])
                self._idle.move_to_end(key)
                if len(pool) < MAX_IDLE:
                    pool.append(cache)
                while len(self._idle) > MAX_POOLS:
                    self._idle.popitem(last=False)
