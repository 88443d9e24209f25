"""The engine: ``check`` and one module per phase of SillyTavern's ``checkWorldInfo``.

``loop`` runs the scan loop; ``state`` is the per-call working state; ``passes`` selects
candidates; ``keys``, ``buffer``, ``timed_effects``, ``groups``, ``budget``, ``gathering``
and ``output`` are the phases; ``fast/`` holds what the fast path precomputes from them.
"""

from __future__ import annotations

from worldinfo.engine.loop import check, compute_budget
from worldinfo.engine.state import CharacterIdentity

__all__ = ["CharacterIdentity", "check", "compute_budget"]
