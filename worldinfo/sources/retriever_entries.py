"""The retriever as an activation source, "entries" mode: score ``vectorized`` lore entries.

SillyTavern marks entries chosen by a retrieval extension with ``vectorized``; its vector
extension force-activates the ones it picks before the scan. Here the picking is the
retriever's arithmetic: keywords are selected from the chat exactly as for memories (word
values and stop-words from the chat-history store's counts, F4-F9), each vectorized entry
is scored like a record whose two halves are (title + primary keys) and content (F13),
and the best ``max_entries`` above the floor (F14) are force-activated. Ties keep the
entries' gathering order (books in play order, then entry order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from worldinfo._js import UNDEFINED, JSONValue, truthy
from worldinfo._record import record
from worldinfo.sources.base import ScanContext
from worldinfo.sources.memory_mode import RetrieverSource, as_scanned
from worldinfo.sources.retriever import RecordStore
from worldinfo.sources.retriever_keywords import Keyword
from worldinfo.types import Book, Entry


@record
class EntryScore:
    """A vectorized entry's score (S115 units) and where it sits in the books."""

    book: str
    entry: Entry
    s115: int
    matches: tuple[int, int]
    position: int


def loaded_entry(book: str, entry: Entry) -> dict[str, JSONValue]:
    """The entry object as loading builds it: ``{uid, world, ...fields}``."""
    obj: dict[str, JSONValue] = {"uid": entry.data.get("uid", UNDEFINED), "world": book}
    obj.update(entry.data)
    return obj


def vectorized_entries(books: Sequence[Book]) -> list[tuple[Book, Entry]]:
    """Enabled entries marked ``vectorized`` in the books in play, in gathering order."""
    out: list[tuple[Book, Entry]] = []
    for book in books:
        for entry in book.entries or ():
            if truthy(entry.data.get("vectorized")) and not truthy(entry.data.get("disable")):
                out.append((book, entry))
    return out


def score_entries(
    store: RecordStore, keywords: Sequence[Keyword], books: Sequence[Book]
) -> list[EntryScore]:
    """Score every vectorized entry; return those above the floor, best first."""
    settings = store.settings
    words = {kw.word for kw in keywords}
    div, fl = settings.length_divisor, settings.half_floor_units
    out: list[EntryScore] = []
    for pos, (book, entry) in enumerate(vectorized_entries(books)):
        title = " ".join([entry.comment, *(k for k in entry.keys if isinstance(k, str))])
        halves = []
        for text in (title, entry.content):
            kept = [t for t in store.tokens(text) if not store.is_stop(t)]
            halves.append((len(words.intersection(kept)), len(kept)))
        s115 = sum(max(div * m - n, fl) for m, n in halves)
        if halves[0][0] + halves[1][0] >= 1 and s115 > settings.score_floor_units:
            out.append(
                EntryScore(
                    book=book.name,
                    entry=entry,
                    s115=s115,
                    matches=(halves[0][0], halves[1][0]),
                    position=pos,
                )
            )
    out.sort(key=lambda e: (-e.s115, e.position))
    return out


class VectorizedEntriesSource(RetrieverSource):
    """Entries mode: force-activate the best-scoring ``vectorized`` entries."""

    def __init__(
        self,
        store: RecordStore,
        *,
        max_entries: int = 3,
        chat_id: str = "chat",
        ingest: bool = True,
    ) -> None:
        super().__init__(store, chat_id=chat_id, ingest=ingest)
        self.max_entries = max_entries

    def force_activate(self, context: ScanContext) -> Sequence[Mapping[str, JSONValue]]:
        """Return the best vectorized entries (``{world, uid, ...}``) to force on."""
        if context.dry_run:
            return ()
        keywords = self.query(context).keywords
        best = score_entries(self.store, keywords, context.books)[: self.max_entries]
        return tuple(as_scanned(loaded_entry(s.book, s.entry)) for s in best)
