"""Importers: every lorebook people share -> worldinfo books, safely; and back.

``load(path_or_bytes)`` detects the format (SillyTavern world JSON, character cards V1/V2/V3
as JSON, PNG or CHARX, NovelAI ``.lorebook``/``.story``, Agnai memory books, RisuAI
lorebook exports, KoboldAI story saves, SillyTavern ``.jsonl`` chats) and converts it with
SillyTavern's own rules. A broken or hostile file raises one ``LorebookImportError`` naming
the file, the format and each problem's JSON path; ``iter_problems`` lists them instead.
``trust=False`` makes the entries untrusted (``Origin.trusted`` is ``False``) and stores them
neutralised under a ``TrustPolicy`` (details in ``importers.trust``): no ``constant``,
``@@activate``, ``sticky`` or ``ignoreBudget``, no system role at depth 0, no regex keys or
keys that match almost any text. The engine enforces the same policy at scan time; an
exported untrusted entry carries ``extensions.worldinfo_origin`` and re-imports untrusted.
Off by default.
Every input is bounded by ``Limits`` (file size, entries per book, JSON containers, items,
string size and depth checked on the bytes before parsing, PNG chunks, decompressed size,
zip members, chat lines); a refusal names the field and how to raise it.
``st_compatible=True`` reads exactly what SillyTavern reads (the golden cases' mode). Exporters write SillyTavern world JSON, V2/V3 ``character_book``
objects and PNG cards.
"""

from __future__ import annotations

from worldinfo.importers.errors import LorebookImportError, Problem
from worldinfo.importers.limits import DEFAULT_LIMITS, Limits
from worldinfo.importers.load import analyse, iter_problems, load
from worldinfo.importers.model import FORMATS, Imported

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from worldinfo.importers.export import (
        card_json,
        character_book,
        world_json,
        write_png_card,
    )

__all__ = [
    "DEFAULT_LIMITS",
    "FORMATS",
    "Imported",
    "Limits",
    "LorebookImportError",
    "Problem",
    "analyse",
    "card_json",
    "character_book",
    "iter_problems",
    "load",
    "world_json",
    "write_png_card",
]

_EXPORTERS = ("card_json", "character_book", "world_json", "write_png_card")
"""Names from ``importers.export``, imported on first use: reading a book does not load
the exporters (start-up time). The readers above are not lazy: importing the submodule
``load`` would otherwise shadow the function ``load`` on this package."""


if not TYPE_CHECKING:  # type checkers see the imports above, and no other attribute
    from worldinfo import _lazy

    __getattr__ = _lazy.lazy_names(
        "worldinfo.importers", dict.fromkeys(_EXPORTERS, "worldinfo.importers.export"), globals()
    )
