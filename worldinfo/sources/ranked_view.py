"""The ranked mode's view of a ``RetrieverIndex``: terms, lengths, positions and days.

Kept up to date lazily before each query: new words are mapped to terms
(``ranked_terms.term``), and when the live records changed the per-record data is extended
(only appends: the common case, one exchange per turn) or rebuilt (after a delete). Nothing
here changes a result; it only avoids recomputing per query what depends on the records alone.
"""

from __future__ import annotations

from collections import Counter
from datetime import date

from worldinfo.sources.ranked_terms import term
from worldinfo.sources.retriever_index import RetrieverIndex


class RankedView:
    """Term statistics, document lengths, live positions and record days of an index."""

    def __init__(self, index: RetrieverIndex, *, stemming: bool) -> None:
        self.index = index
        self.stemming = stemming
        self.term_of: list[str] = []
        self.words_of: dict[str, list[int]] = {}
        self.dl: dict[int, int] = {}
        self.total_dl = 0
        self.pos: dict[int, int] = {}
        self.days: dict[int, date] = {}
        self._signature: tuple[int, int] = (0, 0)

    def term(self, token: str) -> str:
        """The term of a token under this view's stemming choice (``""``: not searched)."""
        t = term(token)
        return t if self.stemming or not t else token

    def refresh(self) -> None:
        """Map new words to terms; bring the per-record data to the live records."""
        index = self.index
        for wid in range(len(self.term_of), len(index.words)):
            t = self.term(index.words[wid])
            self.term_of.append(t)
            if t:
                self.words_of.setdefault(t, []).append(wid)
        live = index.live_ids
        signature = (len(live), live[-1] if live else 0)
        if signature == self._signature:
            return
        old_n, old_last = self._signature
        appended = old_n == 0 or (len(live) >= old_n and live[old_n - 1] == old_last)
        if not appended:
            self.dl, self.pos, self.days, self.total_dl, old_n = {}, {}, {}, 0, 0
        term_of, records = self.term_of, index.records
        for i in range(old_n, len(live)):
            rid = live[i]
            rec = records[rid]
            n = sum(1 for w in rec.user_tokens if term_of[w])
            n += sum(1 for w in rec.reply_tokens if term_of[w])
            self.dl[rid] = n
            self.total_dl += n
            self.pos[rid] = i
            if rec.timestamp is not None:
                self.days[rid] = rec.timestamp.date()
        self._signature = signature

    def neighbour_ids(self, rid: int) -> tuple[int, ...]:
        """The live records just before and just after ``rid``."""
        live, i = self.index.live_ids, self.pos[rid]
        return tuple(live[j] for j in (i - 1, i + 1) if 0 <= j < len(live))

    def tf(self, t: str) -> Counter[int]:
        """Term frequency per live record."""
        index = self.index
        out: Counter[int] = Counter()
        for wid in self.words_of.get(t, ()):
            for half in index.post:
                out.update(half[wid])
        if index.has_dead_postings:
            records = index.records
            for rid in [r for r in out if r not in records]:
                del out[rid]
        return out
