"""The retriever's ranking modes, apart from its settings (the CLI lists them in its help
without importing ``retriever_settings`` and what that needs: start-up time)."""

from __future__ import annotations

from typing import Literal

Ranking = Literal["zwaif", "ranked"]
RANKINGS: tuple[Ranking, ...] = ("zwaif", "ranked")
