"""The retriever's in-memory state: word table, records, inverted index (spec F1, F3, F13).

Records keep every token (nothing pruned, F5); whether a word is a stop-word is decided from
the current counts when a query runs. Scoring needs, per record half, the number L of tokens
that are not stop-words. The index caches L for the stop-word set it last saw and, before a
query, moves the cache to the current set by walking only the postings of the words whose
status changed (the set of stop-words changes by a word or two between turns). Postings keep
one entry per occurrence, so that walk adjusts L by exactly the word's occurrences.

Counts are updated per add, but a bulk add (more tokens than words) into postings free of
deleted records leaves them to be read off the postings' lengths when next read.

Deleted records stay in the postings (skipped when reached) until they outnumber the live
ones, then the postings are compacted; ids are never reused.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from worldinfo.sources.retriever_kept import count_kept
from worldinfo.sources.retriever_keywords import is_stopword, stopword_limit
from worldinfo.sources.retriever_record import IDS, Record
from worldinfo.sources.retriever_settings import RetrieverSettings

_DEFAULTS = RetrieverSettings()


class RetrieverIndex:
    """Word table + records + postings + the cached per-half kept-token counts."""

    def __init__(self, *, settings: RetrieverSettings = _DEFAULTS) -> None:
        self.stop_rule = settings
        self.words: list[str] = []
        self.word_ids: dict[str, int] = {}
        self._counts: list[int] = []
        self._recount = False  # counts to be read off the postings (see ``add_many``)
        self.total = 0
        self.records: dict[int, Record] = {}
        self.by_ref: dict[str, int] = {}
        self.live_ids: list[int] = []
        self.post: tuple[list[array[int]], list[array[int]]] = ([], [])
        self.kept: tuple[array[int], array[int]] = (array("i"), array("i"))
        self._stop: set[int] = set()
        self._stop_total = 0
        self._dirty: set[int] = set()
        self._full_check = False
        self._dead_postings = 0
        self._unkept: list[int] = []

    # --- words -------------------------------------------------------------------------

    def word_id(self, word: str) -> int:
        """Return the id of ``word``, adding it (count 0) if it is new."""
        wid = self.word_ids.get(word)
        if wid is None:
            self.add_words((word,))
            wid = self.word_ids[word]
        return wid

    def add_words(self, words: Iterable[str]) -> None:
        """Give the new ones of ``words`` ids in order, as ``word_id`` one by one would."""
        if new := [w for w in dict.fromkeys(words) if w not in self.word_ids]:
            self.word_ids.update(zip(new, itertools.count(len(self.words))))
            self.words.extend(new)
            self._counts.extend(itertools.repeat(0, len(new)))
            for postings in self.post:
                postings.extend(map(array, itertools.repeat(IDS, len(new))))

    def forget_words(self, first: int) -> None:
        """Drop the words from id ``first`` on (undoes ids taken by a write that failed).

        Only words that no record uses yet may be dropped.
        """
        for word in self.words[first:]:
            del self.word_ids[word]
        del self.words[first:], self._counts[first:]
        del self.post[0][first:], self.post[1][first:]

    @property
    def counts(self) -> list[int]:
        """Occurrences of each word (by id) in the live records."""
        if self._recount:
            self._recount = False
            lengths = map(len, self.post[0]), map(len, self.post[1])
            self._counts[:] = map(operator.add, *lengths)
        return self._counts

    def lookup(self, word: str) -> tuple[int, int] | None:
        """Return (id, count) of a known word, or ``None``."""
        wid = self.word_ids.get(word)
        return None if wid is None else (wid, self.counts[wid])

    # --- records -----------------------------------------------------------------------

    def add(self, record: Record) -> None:
        """Add a record whose token ids are already in the word table (F3)."""
        self.add_many([record])

    def add_many(self, records: Sequence[Record]) -> None:
        """Add records, in growing id order, whose token ids are in the word table (F3).

        The same as adding them one by one (the checks and the cache growth run once).
        While there are stop-words, the records' kept-token counts are left to the next
        ``sync``, which counts them once against its own stop-word set: a bulk ingest no
        longer counts every token against a set that changes before any query reads it.

        Raises:
            ValueError: a record is already present or an id does not grow (nothing added).
        """
        last = self.live_ids[-1] if self.live_ids else None
        refs: set[str] = set()
        for rec in records:
            rid = rec.id
            if rid in self.records or rec.source_ref in self.by_ref or rec.source_ref in refs:
                raise ValueError(f"record {rid} ({rec.source_ref!r}) is already present")
            if last is not None and rid <= last:
                raise ValueError(f"record ids must grow: {rid} after {last}")
            refs.add(rec.source_ref)
            last = rid
        if not records:
            return
        total = self.total
        rids = [rec.id for rec in records]
        for half in (0, 1):
            postings, kept = self.post[half], self.kept[half]
            if len(kept) <= records[-1].id:
                kept.extend(array("i", [0]) * (records[-1].id + 1 - len(kept)))
            tokens = [rec.reply_tokens if half else rec.user_tokens for rec in records]
            lengths = list(map(len, tokens))
            for rid, toks in zip(rids, tokens, strict=True):
                for wid in toks:  # the one per-token Python loop: an append
                    postings[wid].append(rid)
            if not self._stop:  # no stop-word: every token is kept
                for rid, n in zip(rids, lengths, strict=True):
                    kept[rid] = n
            total += sum(lengths)
        if self._stop:  # counted against the stop-words of the next sync, once
            self._unkept.extend(rids)
        if self._recount or (total - self.total > len(self._counts) and not self._dead_postings):
            # a bulk add: no postings of deleted records, so a word's count is the length of
            # its postings; read off once, for every word, when next needed (``counts``)
            self._recount = self._full_check = True
        else:  # counting in C (one hash per token), then one update per distinct word
            added = Counter(itertools.chain.from_iterable(_halves(records)))
            counts = self.counts
            for wid, n in added.items():
                counts[wid] += n
            if len(added) > len(counts) // 4:  # most words moved: the next sync checks all
                self._full_check = True
            elif not self._full_check:  # (else the next sync checks every word anyway)
                self._dirty.update(added)
        self.total = total
        for rec in records:
            self.records[rec.id] = rec
            self.by_ref[rec.source_ref] = rec.id
            self.live_ids.append(rec.id)

    def remove(self, rid: int) -> Record | None:
        """Remove a record and decrement its counts (F16); postings are skipped lazily."""
        record = self.records.pop(rid, None)
        if record is None:
            return None
        del self.by_ref[record.source_ref]
        i = bisect.bisect_left(self.live_ids, rid)
        del self.live_ids[i]
        counts = self.counts
        for tokens in (record.user_tokens, record.reply_tokens):
            for wid in tokens:
                counts[wid] -= 1
            self._dirty.update(tokens)
        self.total -= len(record.user_tokens) + len(record.reply_tokens)
        self._full_check = True
        self._dead_postings += len(record.user_tokens) + len(record.reply_tokens)
        if self._dead_postings > max(self.total, 10_000):
            self.compact()
        return record

    def compact(self) -> None:
        """Drop deleted records' ids from the postings (done when they outnumber live ones)."""
        live = self.records.__contains__
        for postings in self.post:
            for wid, ids in enumerate(postings):
                if ids:
                    postings[wid] = array(IDS, filter(live, ids))
        self._dead_postings = 0

    @property
    def has_dead_postings(self) -> bool:
        """Whether the postings still hold ids of deleted records (skipped when reached)."""
        return self._dead_postings > 0

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[Record]:
        return (self.records[i] for i in self.live_ids)

    def neighbours(self, rid: int, *, before: int, after: int) -> tuple[list[Record], list[Record]]:
        """Return up to ``before`` live records preceding ``rid`` and ``after`` following it."""
        i = bisect.bisect_left(self.live_ids, rid)
        j = i + 1 if i < len(self.live_ids) and self.live_ids[i] == rid else i
        prev = [self.records[x] for x in self.live_ids[max(0, i - before) : i]]
        nxt = [self.records[x] for x in self.live_ids[j : j + after]]
        return prev, nxt

    def cutoff(self, exclusion: int) -> int:
        """Return the smallest excluded record id: eligible ids are below it (F10)."""
        if exclusion <= 0:
            return self.live_ids[-1] + 1 if self.live_ids else 0
        if len(self.live_ids) <= exclusion:
            return -1
        return self.live_ids[-exclusion]

    # --- stop-words and the kept-token cache ----------------------------------------------

    def is_stop(self, wid: int) -> bool:
        """Whether word ``wid`` is a stop-word under the current counts (F5)."""
        return is_stopword(self.counts[wid], self.total, self.stop_rule)

    def stopwords(self) -> set[int]:
        """The current stop-word set, computed from scratch (the reference path uses it)."""
        limit = stopword_limit(self.total, self.stop_rule)
        return set(itertools.compress(itertools.count(), map(limit.__lt__, self.counts)))

    def sync(self) -> None:
        """Bring the kept-token cache to the current stop-word set (and count the records
        ``add_many`` left uncounted, once, against it)."""
        self._sync_stop()
        if self._unkept:
            count_kept(
                self._unkept,
                records=self.records,
                postings=self.post,
                stop=self._stop,
                kept=self.kept,
            )
            self._unkept = []

    def _sync_stop(self) -> None:
        if self.total == self._stop_total and not self._dirty:
            return
        if self._full_check or self.total < self._stop_total:
            candidates: Iterable[int] = range(len(self.counts))
        else:
            candidates = self._dirty | self._stop
        limit, counts, stop = stopword_limit(self.total, self.stop_rule), self.counts, self._stop
        changed = [w for w in candidates if (counts[w] > limit) != (w in stop)]
        self._dirty = set()
        self._full_check = False
        self._stop_total = self.total
        if not changed:
            return
        walk = sum(len(self.post[0][w]) + len(self.post[1][w]) for w in changed)
        for w in changed:
            if w in self._stop:
                self._stop.discard(w)
            else:
                self._stop.add(w)
        if walk > self.total // 4:
            self._unkept = self.live_ids[:]  # counted afresh by sync, every one
            return
        for w in changed:
            delta = -1 if w in self._stop else 1
            for half in (0, 1):
                kept = self.kept[half]
                for rid in self.post[half][w]:
                    kept[rid] += delta

    def kept_counts(self, rid: int) -> tuple[int, int]:
        """Non-stop-word token counts of a record's halves (call ``sync`` first)."""
        return self.kept[0][rid], self.kept[1][rid]


def _halves(records: Sequence[Record]) -> Iterator[array[int]]:
    for rec in records:
        yield rec.user_tokens
        yield rec.reply_tokens


def token_ids(index: RetrieverIndex, tokens: Sequence[str]) -> array[int]:
    """Map tokens to word ids, adding new words to the table."""
    return array(IDS, map(index.word_id, tokens))


__all__ = ["IDS", "Record", "RetrieverIndex", "token_ids"]
