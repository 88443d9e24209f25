"""``collector_paused``: the cyclic garbage collector off for a block, restored on every exit.

Work that makes tens of thousands of containers and no cycle (a plan build, a batch of
retriever records) triggers collections that walk every object already held, the loaded
book or store included. Left alone if the collector is already off.
"""

from __future__ import annotations

import gc


class collector_paused:
    """``with collector_paused():`` runs the block with the collector off."""

    __slots__ = ("_paused",)

    def __enter__(self) -> None:
        self._paused = gc.isenabled()
        if self._paused:
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self._paused:
            gc.enable()
