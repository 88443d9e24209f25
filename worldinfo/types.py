"""Engine values: enums with SillyTavern's numbers, books, entries, settings, results.

Entries stay SillyTavern entry objects (``Entry.data``): the engine reads them with
JavaScript's loose typing and hashes their JSON text, so a typed re-modelling would lose
exactly what faithfulness depends on. Accessors give typed views for callers.
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Mapping

from worldinfo._js import UNDEFINED, JSONValue, in_js_order, reorder, to_string
from worldinfo._record import field, record
from worldinfo.enums import Logic, Position, Role, ScanState, Strategy

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ENTRY_TEMPLATE",
    "GENERATION_TYPES",
    "Book",
    "Character",
    "Entry",
    "Logic",
    "Message",
    "Origin",
    "Persona",
    "Position",
    "RawEntry",
    "Role",
    "ScanState",
    "Settings",
    "Strategy",
    "entry_key",
]

GENERATION_TYPES = ("normal", "continue", "impersonate", "swipe", "regenerate", "quiet")

# SillyTavern 1.15.0 newWorldInfoEntryDefinition defaults, in template order.
RawEntry = dict[str, JSONValue]
"""An entry object as the scan holds it: SillyTavern's JSON fields with their loose types
(plus ``world``, ``decorators`` and ``hash`` once gathered). The engine mutates its own copies.
Distinct from ``Entry``, the immutable stored entry (``Entry.data`` is one)."""

ENTRY_TEMPLATE: Mapping[str, JSONValue] = {
    "key": [],
    "keysecondary": [],
    "comment": "",
    "content": "",
    "constant": False,
    "vectorized": False,
    "selective": True,
    "selectiveLogic": 0,
    "addMemo": False,
    "order": 100,
    "position": 0,
    "disable": False,
    "ignoreBudget": False,
    "excludeRecursion": False,
    "preventRecursion": False,
    "matchPersonaDescription": False,
    "matchCharacterDescription": False,
    "matchCharacterPersonality": False,
    "matchCharacterDepthPrompt": False,
    "matchScenario": False,
    "matchCreatorNotes": False,
    "delayUntilRecursion": 0,
    "probability": 100,
    "useProbability": True,
    "depth": 4,
    "outletName": "",
    "group": "",
    "groupOverride": False,
    "groupWeight": 100,
    "scanDepth": None,
    "caseSensitive": None,
    "matchWholeWords": None,
    "useGroupScoring": None,
    "automationId": "",
    "role": 0,
    "sticky": None,
    "cooldown": None,
    "delay": None,
    "triggers": [],
}


def entry_key(entry: Mapping[str, JSONValue]) -> str:
    """``"${world}.${uid}"``: the key of activations and timed-effect records."""
    return f"{to_string(entry.get('world', UNDEFINED))}.{to_string(entry.get('uid', UNDEFINED))}"


@record
class Origin:
    """Where an imported entry came from, so front-ends can tell imported from authored."""

    file: str | None = None
    format: str | None = None
    container: str | None = None
    trusted: bool = True


@record
class Entry:
    """One World Info entry: the SillyTavern entry object, in its JSON property order.

    Args:
        data: the entry object exactly as stored (loose types are kept on purpose).
        origin: where it was imported from, if known.
    """

    data: Mapping[str, JSONValue]
    origin: Origin | None = None

    @classmethod
    def new(cls, uid: int, /, **fields: Any) -> Entry:
        """Build an entry like SillyTavern's editor does: ``{uid, ...template}`` then ``fields``."""
        data: dict[str, JSONValue] = {"uid": uid, **ENTRY_TEMPLATE}
        data.update(fields)
        return cls(data=data)

    @property
    def uid(self) -> JSONValue:
        """The entry's ``uid`` field (not its key in the book's ``entries`` object)."""
        return self.data.get("uid")

    @property
    def keys(self) -> list[JSONValue]:
        """Primary keys when ``key`` is an array, else ``[]``."""
        k = self.data.get("key")
        return list(k) if isinstance(k, list) else []

    @property
    def secondary_keys(self) -> list[JSONValue]:
        """Secondary keys when ``keysecondary`` is an array, else ``[]``."""
        k = self.data.get("keysecondary")
        return list(k) if isinstance(k, list) else []

    @property
    def content(self) -> str:
        """The stored content (``""`` for a missing or non-string one)."""
        c = self.data.get("content")
        return c if isinstance(c, str) else ""

    @property
    def comment(self) -> str:
        """The entry's title."""
        c = self.data.get("comment")
        return c if isinstance(c, str) else ""


def _entries(datas: list[JSONValue], origin: Origin | None) -> tuple[Entry, ...]:
    """``tuple(Entry(data=d, origin=origin) for d in datas)`` with no bytecode per entry: C loops
    (``map`` over the slots' descriptors) write the slots, as a frozen ``__init__`` does."""
    n = len(datas)
    entries = tuple(map(object.__new__, itertools.repeat(Entry, n)))
    write_data, write_origin = _ENTRY_DATA.__set__, _ENTRY_ORIGIN.__set__
    collections.deque(map(write_data, entries, datas), maxlen=0)
    collections.deque(map(write_origin, entries, itertools.repeat(origin, n)), maxlen=0)
    return entries


_ENTRY_DATA, _ENTRY_ORIGIN = Entry.__dict__["data"], Entry.__dict__["origin"]


@record
class Book:
    """A World Info book (SillyTavern world file).

    Args:
        name: the book name (SillyTavern: the file name without extension).
        entries: entries in JavaScript enumeration order of the ``entries`` object, or
            ``None`` when the file has no ``entries`` member at all.
        extra: the other top-level members (``originalData``, ``name``, ``_meta``, ...).
    """

    name: str
    entries: tuple[Entry, ...] | None = ()
    extra: Mapping[str, JSONValue] = field(default_factory=dict)
    derived: dict[str, object] = field(default_factory=dict, init=False, repr=False, compare=False)
    """Answers computed once from the (immutable) book, e.g. ``trust.book_has_untrusted``."""

    @classmethod
    def from_json(
        cls,
        name: str,
        obj: Mapping[str, JSONValue],
        *,
        origin: Origin | None = None,
        js_ordered: bool = False,
    ) -> Book:
        """Build a book from a parsed world JSON object (key order as ``JSON.parse`` gives).

        Args:
            name: the book name.
            obj: the world object.
            origin: where its entries come from.
            js_ordered: ``True`` when every object inside the entries already enumerates in
                JavaScript key order, as ``_js.parse_json`` returns them (or when they are
                built from its values under keys that are not array indexes): the entry
                objects are then kept as they are instead of copied in that order, and only
                the ``entries`` object itself is put in order. Same book, without walking
                every value of every entry.
        """
        raw = obj.get("entries")
        extra = {k: v for k, v in obj.items() if k != "entries"}
        if raw is None:
            # no ``entries`` (or ``null``): SillyTavern's gathering throws and the scan then
            # sees no entries from any book (Q1).
            return cls(name=name, entries=None, extra=extra)
        if isinstance(raw, Mapping) and js_ordered:
            keys = list(raw)
            order = in_js_order(keys)
            values = list(raw.values()) if order is keys else [raw[k] for k in order]
        elif isinstance(raw, Mapping):
            ordered = reorder(dict(raw))
            values = list(ordered.values())
        elif isinstance(raw, list):
            values = list(raw)
        else:
            values = []
        if set(map(type, values)) != {dict}:  # one C pass when every value is an object
            values = [v for v in values if type(v) is dict or isinstance(v, Mapping)]
        entries = _entries(values, origin)  # every value an object (above)
        return cls(name=name, entries=entries, extra=extra)


@record
class Settings:
    """The thirteen World Info settings (SillyTavern names without ``world_info_``)."""

    depth: JSONValue = 2
    min_activations: JSONValue = 0
    min_activations_depth_max: JSONValue = 0
    budget: JSONValue = 25
    budget_cap: JSONValue = 0
    include_names: JSONValue = True
    recursive: JSONValue = False
    case_sensitive: JSONValue = False
    match_whole_words: JSONValue = False
    use_group_scoring: JSONValue = False
    character_strategy: JSONValue = 1
    max_recursion_steps: JSONValue = 0
    overflow_alert: JSONValue = False

    @classmethod
    def from_json(cls, obj: Mapping[str, JSONValue]) -> Settings:
        """Build settings from a mapping of the field names above (unknown keys ignored)."""
        names = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in obj.items() if k in names})


@record
class Character:
    """The active character: identity for filters, card fields for scanning and macros."""

    name: str
    avatar: str = ""
    tags: tuple[str, ...] = ()
    book: str | None = None
    extra_books: tuple[str, ...] = ()
    description: str = ""
    personality: str = ""
    scenario: str = ""
    depth_prompt: str = ""
    depth_prompt_depth: int = 4
    depth_prompt_role: str = "system"
    creator_notes: str = ""

    @property
    def file_name(self) -> str:
        """The avatar file name without its last extension (character filters use it)."""
        base, dot, _ = self.avatar.rpartition(".")
        return base if dot else self.avatar


@record
class Persona:
    """The user persona: ``{{user}}``, description placement and the persona book."""

    name: str = "User"
    description: str = ""
    book: str | None = None
    position: int = 0
    depth: int = 2
    role: int = 0


@record
class Message:
    """One chat message as SillyTavern stores it."""

    name: str
    mes: str
    is_user: bool = False
    is_system: bool = False
