"""The hooks an activation source plugs into: SillyTavern's three World Info extension points.

* ``force_activate`` -- before a scan, entries to force on (``WORLDINFO_FORCE_ACTIVATE``);
* ``entries_loaded`` -- after the four lore lists are loaded, before sorting
  (``WORLDINFO_ENTRIES_LOADED``); a source may add, remove or edit entry objects;
* ``scan_done`` -- after every scan loop (``WORLDINFO_SCAN_DONE``); a source may steer the
  next state, the recursed text, the delay level, the budget and the overflow flag.

``Session`` also tells sources about chat changes (``messages_changed``) and finished scans
(``scan_finished``), so a retriever can ingest exchanges. The engine and ``Session`` call
these hooks, so they live below both; the sources themselves (``worldinfo.sources``, which
re-exports these names with ``NullSource``) sit above. The ``ActivationSource`` protocol
itself is ``worldinfo.engine.source_protocol`` (it needs ``typing`` at run time, which a scan
need not import: start-up time).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from worldinfo._js import JSONValue
from worldinfo._record import field, record
from worldinfo.types import Book, Message, ScanState, Settings


@record
class ScanContext:
    """What a source may read before a scan.

    Args:
        chat: the chat as the front-end holds it, oldest first (system messages included).
        chat_for_wi: the scanned messages, newest first, as the engine sees them.
        books: the books in play for this scan, in gathering order.
        settings: the World Info settings.
        trigger: the generation type the scan runs for.
        dry_run: True for prompt previews; forced activations are ignored then.
    """

    chat: Sequence[Message]
    chat_for_wi: Sequence[str]
    books: Sequence[Book]
    settings: Settings
    trigger: str = "normal"
    dry_run: bool = False


@record(frozen=False)
class LoadedLore:
    """The four lore lists after loading; entry objects are ``{uid, world, ...fields}``."""

    global_entries: list[dict[str, JSONValue]] = field(default_factory=list)
    character_entries: list[dict[str, JSONValue]] = field(default_factory=list)
    chat_entries: list[dict[str, JSONValue]] = field(default_factory=list)
    persona_entries: list[dict[str, JSONValue]] = field(default_factory=list)


@record(frozen=False)
class LoopState:
    """One finished scan loop. The mutable fields are read back by the engine afterwards."""

    loop: int
    current: ScanState
    candidates: Sequence[Mapping[str, JSONValue]]
    successful: Sequence[Mapping[str, JSONValue]]
    activated: Sequence[Mapping[str, JSONValue]]
    next: ScanState
    recursed_text: str
    current_delay_level: float
    budget: int
    overflowed: bool
