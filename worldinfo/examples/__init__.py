"""A small example lorebook and chat, written for worldinfo (MIT), used by ``worldinfo demo``;
``archivist-card.json`` is the same book in a V2 character card (the ``serve`` walk-through)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def path(name: str) -> Path:
    """The path of a bundled example file (``emberfall.json``, ``emberfall-chat.json``)."""
    return Path(str(resources.files(__name__).joinpath(name)))
