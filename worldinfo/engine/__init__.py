"""The engine: ``check`` and one module per phase of SillyTavern's ``checkWorldInfo``.

``loop`` sets up one call and ``scan_loop`` runs its passes; ``state`` is the per-call
working state; ``passes`` selects
candidates; ``keys``, ``buffer``, ``timed_effects``, ``groups``, ``budget``, ``gathering``
and ``output`` are the phases; ``fast/`` holds what the fast path precomputes from them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from worldinfo.engine.budget import compute_budget
    from worldinfo.engine.loop import check
    from worldinfo.engine.state import CharacterIdentity

__all__ = ["CharacterIdentity", "check", "compute_budget"]

_HOMES = {
    "CharacterIdentity": "worldinfo.engine.state",
    "check": "worldinfo.engine.loop",
    "compute_budget": "worldinfo.engine.budget",
}
"""Where each name lives: importing one phase module does not load the whole engine."""


if not TYPE_CHECKING:  # type checkers see the imports above, and no other attribute
    from worldinfo import _lazy

    __getattr__ = _lazy.lazy_names("worldinfo.engine", _HOMES, globals())
