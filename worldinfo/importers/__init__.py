"""Importers: every lorebook people share -> worldinfo books, safely; and back.

``load(path_or_bytes)`` detects the format (SillyTavern world JSON, character cards V1/V2/V3
as JSON, PNG or CHARX, NovelAI ``.lorebook``/``.story``, Agnai memory books, RisuAI
lorebook exports, KoboldAI story saves, SillyTavern ``.jsonl`` chats) and converts it with
SillyTavern's own rules. A broken or hostile file raises one ``LorebookImportError`` naming
the file, the format and each problem's JSON path; ``iter_problems`` lists them instead.
``trust=False`` neutralises what an untrusted file could use to force activation; exactly
(details in ``importers.trust``): truthy ``constant`` becomes ``false``; ``/pattern/flags``
keys are removed from ``key`` and ``keysecondary``; leading ``@@activate`` / ``@@@activate``
decorator lines become ``@@untrusted_activate`` / ``@@@untrusted_activate`` (still stripped
from the prompt, no effect); ``Origin.trusted`` is ``False``. Off by default.
Every input is bounded by ``Limits`` (file size, entries per book, JSON containers, items,
string size and depth checked on the bytes before parsing, PNG chunks, decompressed size,
zip members, chat lines); a refusal names the field and how to raise it.
``st_compatible=True`` reads exactly what SillyTavern reads (the golden cases' mode). Exporters write SillyTavern world JSON, V2/V3 ``character_book``
objects and PNG cards.
"""

from __future__ import annotations

from worldinfo.importers.errors import LorebookImportError, Problem
from worldinfo.importers.export import (
    card_json,
    character_book,
    world_json,
    write_png_card,
)
from worldinfo.importers.limits import DEFAULT_LIMITS, Limits
from worldinfo.importers.load import analyse, iter_problems, load
from worldinfo.importers.model import FORMATS, Imported

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
