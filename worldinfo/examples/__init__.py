"""Small examples written for worldinfo (MIT): a lorebook and chat (``worldinfo demo``), the
same book in a V2 character card (``archivist-card.json``, the ``serve`` walk-through) and a
dated SillyTavern chat for the memory (``memory-chat.jsonl``)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def path(name: str) -> Path:
    """The path of a bundled example file (``emberfall.json``, ``emberfall-chat.json``)."""
    return Path(str(resources.files(__name__).joinpath(name)))
