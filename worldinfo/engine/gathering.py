"""Which books are scanned, and the sorted, decorated, hashed entry list (R11-R15).

``select_books`` applies SillyTavern's skip rules to the four sources (global, character,
chat, persona); ``load_lore`` enumerates each book's entries as ``{uid, world, ...}``
objects; ``sort_lore`` merges them by insertion strategy and computes each entry's
decorators and hash. Every call builds fresh objects: evaluation mutates only its copies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSError, JSONValue
from worldinfo._record import record
from worldinfo.engine.source_hooks import LoadedLore
from worldinfo.trust import DEFAULT_TRUST, TrustPolicy, is_untrusted, restrict
from worldinfo.types import Book, Entry

KNOWN_DECORATORS = ("@@activate", "@@dont_activate")


@record
class BookSelection:
    """Book names bound in each place, before the skip rules.

    Args:
        global_names: globally selected books, in selection order (duplicates allowed).
        character_names: the character's primary book, then its extra books.
        chat_name: the chat-bound book (``chat_metadata.world_info``).
        persona_name: the persona-bound book.
    """

    global_names: Sequence[str] = ()
    character_names: Sequence[str] = ()
    chat_name: str | None = None
    persona_name: str | None = None


@record
class SelectedBooks:
    """Book names per source after the skip rules (R11)."""

    global_names: tuple[str, ...]
    character_names: tuple[str, ...]
    chat_name: str | None
    persona_name: str | None

    def all_names(self) -> tuple[str, ...]:
        """Every selected name in gathering order (global, character, chat, persona)."""
        extra = tuple(n for n in (self.chat_name, self.persona_name) if n)
        return self.global_names + self.character_names + extra


def select_books(sel: BookSelection, books: Mapping[str, Book]) -> SelectedBooks:
    """Apply R11: a book bound in several places is read once, attributed in priority order."""
    global_names = tuple(n for n in sel.global_names if n in books)
    chat = sel.chat_name if _js.truthy(sel.chat_name) else None
    persona = sel.persona_name if _js.truthy(sel.persona_name) else None
    character: list[str] = []
    for name in sel.character_names:
        if not _js.truthy(name) or name in character:
            continue
        if name in global_names or name in (chat, persona):
            continue
        character.append(name)
    if chat is not None and chat in global_names:
        chat = None
    if persona is not None and (persona == sel.chat_name or persona in global_names):
        persona = None
    return SelectedBooks(
        global_names=global_names,
        character_names=tuple(character),
        chat_name=chat,
        persona_name=persona,
    )


def entry_object(
    entry: Entry, world: str, *, trust: TrustPolicy = DEFAULT_TRUST
) -> dict[str, JSONValue]:
    """A book entry as the scan loads it: ``{uid, world, ...fields}`` (R2); an untrusted
    entry without the field powers ``trust`` denies it (``trust.restrict``)."""
    obj: dict[str, JSONValue] = {"uid": entry.data.get("uid", UNDEFINED), "world": world}
    obj.update(entry.data)
    return restrict(obj, trust) if is_untrusted(entry) else obj


def book_entries(
    book: Book | None, *, trust: TrustPolicy = DEFAULT_TRUST
) -> list[dict[str, JSONValue]]:
    """The ``{uid, world, ...fields}`` objects of a book's entries, in book order."""
    if book is None or book.entries is None:
        return []
    return [entry_object(entry, book.name, trust=trust) for entry in book.entries]


EntriesOf = Callable[[str, Book | None], list[dict[str, JSONValue]]]
"""``(book name, book) -> entry objects``: how one selected book's entries are loaded."""


def load_lore(
    selected: SelectedBooks,
    books: Mapping[str, Book],
    *,
    trust: TrustPolicy = DEFAULT_TRUST,
    entries_of: EntriesOf | None = None,
) -> LoadedLore | None:
    """Enumerate the entries of each source (R2); ``None`` when a loaded book has no
    ``entries`` member, which makes SillyTavern see no entries at all (Q1).

    ``entries_of`` loads one book (default: fresh ``book_entries``); the fast path's plan
    passes its cached loader, so both paths gather the books here, in this order.
    """
    for name in selected.all_names():
        book = books.get(name)
        if book is not None and book.entries is None:
            return None

    def fresh(_name: str, book: Book | None) -> list[dict[str, JSONValue]]:
        return book_entries(book, trust=trust)

    load = entries_of or fresh
    lore = LoadedLore()
    for name in selected.global_names:
        lore.global_entries.extend(load(name, books.get(name)))
    for name in selected.character_names:
        lore.character_entries.extend(load(name, books.get(name)))
    if selected.chat_name:
        lore.chat_entries.extend(load(selected.chat_name, books.get(selected.chat_name)))
    if selected.persona_name:
        lore.persona_entries.extend(load(selected.persona_name, books.get(selected.persona_name)))
    return lore


def parse_decorators(content: JSONValue) -> tuple[list[str], JSONValue]:
    """Split leading ``@@`` decorator lines off ``content`` (R14)."""
    if not isinstance(content, str):
        raise JSError("content.startsWith is not a function")
    if not content.startswith("@@"):
        return [], content
    lines, first = read_decorators(content)
    decorators = [name for name, known in lines if known]
    if first is None:
        return decorators, content
    return decorators, "\n".join(content.split("\n")[first:])


def read_decorators(content: str) -> tuple[list[tuple[str, bool]], int | None]:
    """The decorator lines SillyTavern reads at the top of ``content`` (R14), one definition
    for the scan (``parse_decorators``) and lint.

    Returns:
        Each decorator name read (an ``@@@`` line only after an unknown one, as its
        fallback) with whether it is known (starts with ``@@activate``/``@@dont_activate``),
        and the index of the first content line (``None``: every line is an ``@@`` line).
    """
    read: list[tuple[str, bool]] = []
    fallback = False
    for i, line in enumerate(content.split("\n")):
        if not line.startswith("@@"):
            return read, i
        if line.startswith("@@@") and not fallback:
            continue
        name = line[1:] if line.startswith("@@@") else line
        known = name.startswith(KNOWN_DECORATORS)
        read.append((name, known))
        fallback = not known
    return read, None


def decorate_unhashed(entry: dict[str, JSONValue]) -> dict[str, JSONValue]:
    """A copy of ``entry`` with its ``decorators`` and stripped ``content`` (R13-R14)."""
    return _decorate_in_place(dict(entry))


def _decorate_in_place(obj: dict[str, JSONValue]) -> dict[str, JSONValue]:
    return _decorate_all([obj])[0]


def _decorate_all(objs: list[dict[str, JSONValue]]) -> list[dict[str, JSONValue]]:
    """Give each object its ``decorators`` and stripped ``content`` (R13-R14), in place."""
    for obj in objs:
        raw = obj.get("content", UNDEFINED)
        if type(raw) is str and not raw.startswith("@@"):  # no decorators: content as it is
            obj["decorators"] = []
            continue
        decorators, content = parse_decorators(raw if _js.truthy(raw) else "")
        obj["decorators"] = decorators
        obj["content"] = content
    return objs


def decorated_object(
    entry: Entry, world: str, *, trust: TrustPolicy = DEFAULT_TRUST, trusted: bool = False
) -> dict[str, JSONValue]:
    """``decorate_unhashed(entry_object(entry, world))``, without the intermediate copy
    (``trusted``: the caller knows ``is_untrusted(entry)`` is false)."""
    if trusted:
        return decorated_objects([entry], [world])[0]
    return _decorate_in_place(entry_object(entry, world, trust=trust))


def decorated_objects(
    entries: Sequence[Entry], worlds: Sequence[str]
) -> list[dict[str, JSONValue]]:
    """``decorated_object`` of each trusted entry (``is_untrusted`` is false) and its book
    name, built in one pass."""
    return _decorate_all(
        [
            {"uid": e.data.get("uid", UNDEFINED), "world": w, **e.data}
            for e, w in zip(entries, worlds, strict=True)
        ]
    )


def entry_hash(obj: dict[str, JSONValue]) -> int:
    """``getStringHash(JSON.stringify(entry))`` of a decorated entry before its ``hash``."""
    return _js.string_hash(_js.stringify(obj))


def entry_hashes(objs: Sequence[dict[str, JSONValue]]) -> list[int]:
    """``entry_hash`` of each object, the strings hashed together (``_js.string_hashes``)."""
    return _js.string_hashes([_js.stringify(obj) for obj in objs])


def decorate(entry: dict[str, JSONValue]) -> dict[str, JSONValue]:
    """A copy of ``entry`` with its ``decorators``, stripped ``content`` and ``hash`` (R13)."""
    obj = decorate_unhashed(entry)
    obj["hash"] = entry_hash(obj)
    return obj


def merge_order(
    *,
    global_entries: list[dict[str, JSONValue]],
    character_entries: list[dict[str, JSONValue]],
    chat_entries: list[dict[str, JSONValue]],
    persona_entries: list[dict[str, JSONValue]],
    strategy: JSONValue,
) -> list[int]:
    """The merge of the four lore lists by insertion strategy (R12), as indices into the
    lists one after the other (global, character, chat, persona): an entry gathered twice
    is two indices."""
    rank = _js.rank_desc_by_order
    chars = len(global_entries)
    chat = chars + len(character_entries)
    persona = chat + len(chat_entries)

    def sort(items: list[dict[str, JSONValue]], start: int) -> list[int]:
        ranked = rank(items)
        return list(map(start.__add__, ranked)) if start else ranked

    if _js.strict_eq(strategy, 1):
        merged = sort(character_entries, chars) + sort(global_entries, 0)
    elif _js.strict_eq(strategy, 2):
        merged = sort(global_entries, 0) + sort(character_entries, chars)
    else:  # each list sorted on its own is not used (the sort is pure)
        merged = sort(global_entries + character_entries, 0)
    return sort(chat_entries, chat) + sort(persona_entries, persona) + merged


def sort_lore(lore: LoadedLore, *, strategy: JSONValue) -> list[dict[str, JSONValue]]:
    """Merge the sources by insertion strategy (R12), then decorate and hash (R13)."""
    every = lore.global_entries + lore.character_entries + lore.chat_entries
    every += lore.persona_entries
    order = merge_order(
        global_entries=lore.global_entries,
        character_entries=lore.character_entries,
        chat_entries=lore.chat_entries,
        persona_entries=lore.persona_entries,
        strategy=strategy,
    )
    return [decorate(every[i]) for i in order]


def delay_levels(entries: Sequence[Mapping[str, JSONValue]]) -> list[JSONValue]:
    """R29: the distinct ``delayUntilRecursion`` levels of all entries, ascending."""
    levels: list[JSONValue] = []
    for e in entries:
        d = e.get("delayUntilRecursion", UNDEFINED)
        if not _js.truthy(d):
            continue
        level = 1 if d is True else d
        if not any(_js.strict_eq(level, x) for x in levels):
            levels.append(level)
    ordered = _js.sort_desc_by_order([{"order": _js.to_number(x), "v": x} for x in levels])[::-1]
    return [x["v"] for x in ordered]


def sorted_entries(
    books: Mapping[str, Book],
    selection: BookSelection,
    *,
    strategy: JSONValue,
    trust: TrustPolicy = DEFAULT_TRUST,
) -> list[dict[str, JSONValue]]:
    """``getSortedEntries``: the decorated, hashed entry list a scan would see."""
    lore = load_lore(select_books(selection, books), books, trust=trust)
    return sort_lore(lore, strategy=strategy) if lore is not None else []
