"""What SillyTavern's ``Generate`` prepares before a scan (``golden/FORMAT.md`` section 2).

``ExtensionPrompts`` is its ``extension_prompts`` map as World Info reads it: the Author's
Note (``setFloatingPrompt``: due every ``note_interval`` user messages), the quiet prompt,
the persona description and the character's depth prompt, each with whether the scan reads
it. ``card_fields`` are the character card's fields the scan can match
(``globalScanData``); ``drops_last_message``, ``with_first_message_evaluated``,
``scanned_messages`` and ``chat_for_wi`` turn the chat into the scanned messages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo._record import record
from worldinfo.engine.buffer import ScanData
from worldinfo.macros import StMacros, Substitute
from worldinfo.types import GENERATION_TYPES, Character, Message, Persona

AN_KEY = "2_floating_prompt"
QUIET_KEY = "QUIET_PROMPT"
PERSONA_KEY = "PERSONA_DESCRIPTION"
DEPTH_KEY = "DEPTH_PROMPT"


@record(frozen=False, kw_only=False)
class _Prompt:
    """One extension prompt and whether the scan reads it."""

    value: JSONValue
    scan: bool


class ExtensionPrompts:
    """The extension prompts kept between generations, in insertion order."""

    def __init__(self) -> None:
        self._prompts: dict[str, _Prompt] = {}
        self.note_due = False
        """The Author's Note goes into this generation's prompt (``shouldAddPrompt``)."""

    def set(self, key: str, value: JSONValue, *, scan: bool) -> None:
        """Set the prompt ``key`` (a new key goes last)."""
        self._prompts[key] = _Prompt(value, scan=scan)

    def set_depth_prompt(self, text: str, *, scan: bool) -> None:
        """Replace every depth prompt by the character's (placed last)."""
        self._prompts = {k: v for k, v in self._prompts.items() if not k.startswith(DEPTH_KEY)}
        self._prompts[DEPTH_KEY] = _Prompt(text, scan=scan)

    def scanned(self) -> list[JSONValue]:
        """The values the scan reads, in order (``inject``)."""
        return [p.value for p in self._prompts.values() if p.scan]

    def authors_note(self) -> str | None:
        """The Author's Note text when it is due this generation, else ``None``."""
        note = self._prompts.get(AN_KEY)
        return _js.to_string(note.value) if self.note_due and note else None

    def set_floating_prompt(
        self,
        *,
        character: Character | None,
        chat: Sequence[Message],
        chat_metadata: Mapping[str, JSONValue],
        allow_wi_scan: bool,
    ) -> None:
        """Author's Note due-ness (authors-note.js ``setFloatingPrompt``)."""
        if character is None:
            self.note_due = False
            return
        md = chat_metadata
        interval = md.get("note_interval", UNDEFINED)
        n: JSONValue = sum(1 for m in chat if m.is_user)
        if _js.strict_eq(interval, 1):
            n = 1
        if _js.le(n, 0) or _js.le(interval, 0):
            self._prompts[AN_KEY] = _Prompt("", scan=False)
            self.note_due = False
            return
        till = (
            _js.to_number(n) % _js.to_number(interval)
            if _js.ge(n, interval)
            else _js.to_number(interval) - _js.to_number(n)
        )
        due = till == 0
        self.note_due = due
        note = md.get("note_prompt", UNDEFINED)
        self._prompts[AN_KEY] = _Prompt(note if due else "", scan=allow_wi_scan)

    def add_persona_description(self, persona: Persona) -> None:
        """Put the persona description where its position says (in the note or its own)."""
        p = persona
        self._prompts[PERSONA_KEY] = _Prompt("", scan=True)
        if not p.description or p.position == 9:
            return
        if p.position in (2, 3) and self.note_due:
            note = self._prompts.get(AN_KEY, _Prompt("", scan=False))
            text = _js.to_string(note.value) if _js.truthy(note.value) else ""
            joined = p.description + "\n" + text if p.position == 2 else text + "\n" + p.description
            self._prompts[AN_KEY] = _Prompt(joined, scan=note.scan)
        elif p.position == 4:
            self._prompts[PERSONA_KEY] = _Prompt(p.description, scan=True)


def card_fields(
    macros: Substitute,
    *,
    character: Character | None,
    persona: Persona,
    chat_metadata: Mapping[str, JSONValue],
    type: str,
) -> ScanData:
    """The card fields a scan can match, macro-substituted, trimmed, without ``\\r``."""
    field: Callable[[str], str] = macros.card_field if isinstance(macros, StMacros) else macros

    def prep(value: JSONValue) -> str:
        text = _js.trim(value) if isinstance(value, str) else ""
        return field(text).replace("\r", "") if text else ""

    c = character
    persona_text = prep(persona.description)
    trigger = type if type in GENERATION_TYPES else "normal"
    if c is None:
        return ScanData(persona_description=persona_text, trigger=trigger)
    scenario = chat_metadata.get("scenario")
    return ScanData(
        persona_description=persona_text,
        character_description=prep(c.description),
        character_personality=prep(c.personality),
        character_depth_prompt=prep(c.depth_prompt),
        scenario=prep(scenario if _js.truthy(scenario) else c.scenario),
        creator_notes=prep(c.creator_notes),
        trigger=trigger,
    )


def drops_last_message(chat: Sequence[Message], type: str, *, dry_run: bool) -> bool:
    """Does a generation of ``type`` remove the last (character) message first (regenerate)?"""
    if type in ("regenerate", "swipe", "quiet", "impersonate") or dry_run:
        if chat and chat[-1].is_user:
            return False
        return type not in ("quiet", "swipe", "impersonate") and not dry_run and bool(chat)
    return False


def with_first_message_evaluated(chat: list[Message], macros: Substitute) -> None:
    """Run the macros over the first message's text, in place (SillyTavern does it per call)."""
    if chat and isinstance(chat[0].mes, str):
        first = chat[0]
        chat[0] = Message(
            name=first.name,
            mes=macros(first.mes),
            is_user=first.is_user,
            is_system=first.is_system,
        )


def scanned_messages(chat: Sequence[Message], type: str) -> list[Message]:
    """The messages a generation of ``type`` scans: no system messages, a swipe drops the last."""
    core = [m for m in chat if not m.is_system]
    if type == "swipe":
        core = core[:-1]
    return core


def chat_for_wi(core: Sequence[Message], *, include_names: JSONValue) -> list[str]:
    """The scanned texts, newest first, with ``name: `` in front when names are included."""
    names = _js.truthy(include_names)
    out = [f"{m.name}: {_js.to_string(m.mes)}" if names else m.mes for m in core]
    out.reverse()
    return out
