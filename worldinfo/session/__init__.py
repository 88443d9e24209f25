"""``Session``: the one stateful object, a chat being played across generations.

It carries a chat, its metadata (timed effects, Author's Note), the extension prompts
SillyTavern keeps between generations, forced activations and activation sources, and does
the chat preparation a front-end does before each scan (``golden/FORMAT.md`` section 2 of
the shared cases). ``session.py`` holds ``Session`` (what a generation does), ``state.py``
``SessionState`` (what it holds across generations, and the macro evaluator bound to each),
``preparation.py`` what SillyTavern's ``Generate`` prepares (extension prompts, card
fields, the scanned messages), ``books.py`` which books and entries are in play.
"""

from __future__ import annotations

from worldinfo.session.session import Session, names_only_macros
from worldinfo.session.state import CountingRng

__all__ = ["CountingRng", "Session", "names_only_macros"]
