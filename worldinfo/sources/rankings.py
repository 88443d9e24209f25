"""The retriever's ranking modes, apart from its settings (the CLI lists them in its help
without importing ``retriever_settings`` and what that needs: start-up time)."""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Literal

    Ranking = Literal["zwaif", "ranked"]
RANKINGS: tuple[Ranking, ...] = ("zwaif", "ranked")


def __getattr__(name: str) -> object:
    """``Ranking``, made (importing ``typing``) when first read: the CLI's help lists
    ``RANKINGS`` only."""
    if name != "Ranking":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from typing import Literal

    made = Literal["zwaif", "ranked"]
    globals()["Ranking"] = made
    return made
