"""Record scores (spec F12-F14): the inverted-index path and the full-scan reference path.

Scores are integers in units of 1/length_divisor ("S115"): per half
max(div * matched_keywords - kept_tokens, half_floor * div), summed over the two halves.
A record with no keyword in either half scores <= 0 and can never clear the floor (F13), so
scoring only the records reached through the keywords' postings gives exactly the full
scan's result; ``score_reference`` is that full scan, kept for tests and the benchmark.
"""

from __future__ import annotations

import heapq
import itertools
import operator
from collections import Counter
from collections.abc import Iterator, Sequence

from worldinfo._record import record
from worldinfo.sources.retriever_index import RetrieverIndex
from worldinfo.sources.retriever_keywords import Keyword
from worldinfo.sources.retriever_settings import RetrieverSettings


@record
class Scored:
    """A candidate record's score.

    Args:
        record_id: the record.
        s115: own score x length_divisor (exact).
        rank: what the ranking compares: ``s115``, or own + neighbours with smoothing (F12).
        matches: distinct keywords in the (user, reply) halves.
        kept: non-stop-word tokens in the (user, reply) halves.
    """

    record_id: int
    s115: int
    rank: int
    matches: tuple[int, int]
    kept: tuple[int, int]


_has = set.__contains__


def _half(matches: int, kept: int, settings: RetrieverSettings) -> int:
    return max(settings.length_divisor * matches - kept, settings.half_floor_units)


def _finish(
    index: RetrieverIndex,
    scored: list[Scored],
    own: dict[int, int],
    *,
    settings: RetrieverSettings,
    top: int,
    neighbour_score: dict[int, int] | None = None,
) -> list[Scored]:
    """Apply the smoothing variant if enabled, then return the best ``top``, best first."""
    if settings.smoothing:
        smoothed: list[Scored] = []
        for s in scored:
            prev, nxt = index.neighbours(s.record_id, before=1, after=1)
            extra = 0
            for rec in (*prev, *nxt):
                got = own.get(rec.id)
                if got is None and neighbour_score is not None:
                    got = neighbour_score.get(rec.id)
                extra += got if got is not None else _unmatched(index, rec.id, settings)
            smoothed.append(
                Scored(
                    record_id=s.record_id,
                    s115=s.s115,
                    rank=s.s115 + extra,
                    matches=s.matches,
                    kept=s.kept,
                )
            )
        scored = smoothed
    return heapq.nlargest(max(top, 1), scored, key=lambda s: (s.rank, s.record_id))


def _unmatched(index: RetrieverIndex, rid: int, settings: RetrieverSettings) -> int:
    ku, kr = index.kept_counts(rid)
    return _half(0, ku, settings) + _half(0, kr, settings)


def score_indexed(
    index: RetrieverIndex,
    keywords: Sequence[Keyword],
    *,
    settings: RetrieverSettings,
    top: int = 1,
) -> list[Scored]:
    """Score the records reached through the keywords' postings; return the best ``top``.

    Records are visited by decreasing number of matched keywords M. A half scores at most
    ``div * m_h`` (plus a positive half floor, if one is configured), so once
    ``div * M + slack`` is below the ``top``-th best score found, no later record can enter
    the result, ties included, and the walk stops (not with the smoothing variant, whose
    neighbour terms are unbounded by M).
    """
    if not keywords or not index.records:
        return []
    index.sync()
    users = [set(index.post[0][kw.word_id]) for kw in keywords]
    replies = [set(index.post[1][kw.word_id]) for kw in keywords]
    # one count over every posting; a record's per-half counts only when it is reached
    mt = Counter(itertools.chain(*users, *replies))
    cut = index.cutoff(settings.exclusion)
    div, fl, floor = settings.length_divisor, settings.half_floor_units, settings.score_floor_units
    slack = 2 * max(fl, 0)
    prune = not settings.smoothing
    ku, kr = index.kept
    records = index.records
    heap: list[tuple[int, int]] = []
    want = max(top, 1)
    scored: list[Scored] = []
    own: dict[int, int] = {}
    for rid, m in _by_matches(mt):
        if prune and len(heap) >= want and div * m + slack < heap[0][0]:
            break
        if rid not in records:
            continue
        m_u = sum(map(_has, users, itertools.repeat(rid)))
        m_r = m - m_u
        s = max(div * m_u - ku[rid], fl) + max(div * m_r - kr[rid], fl)
        own[rid] = s
        if rid < cut and s > floor:
            scored.append(
                Scored(record_id=rid, s115=s, rank=s, matches=(m_u, m_r), kept=(ku[rid], kr[rid]))
            )
            if prune:
                if len(heap) < want:
                    heapq.heappush(heap, (s, rid))
                elif (s, rid) > heap[0]:
                    heapq.heapreplace(heap, (s, rid))
    return _finish(index, scored, own, settings=settings, top=top)


def _by_matches(mt: Counter[int]) -> Iterator[tuple[int, int]]:
    """``mt``'s items by decreasing count; those counted once last, unsorted and only if reached.

    The order among equal counts does not change the result: the walk stops only between two
    counts (every record at count m scores at most ``div * m + slack``).
    """
    counts = mt.values()
    several = list(itertools.compress(mt, map(operator.ge, counts, itertools.repeat(2))))
    several.sort(key=mt.__getitem__, reverse=True)
    for rid in several:
        yield rid, mt[rid]
    for rid in itertools.compress(mt, map(operator.eq, counts, itertools.repeat(1))):
        yield rid, 1


def score_reference(
    index: RetrieverIndex,
    keywords: Sequence[Keyword],
    *,
    settings: RetrieverSettings,
    top: int = 1,
) -> list[Scored]:
    """Full scan of every record from its token lists (no index, no cache); best ``top``."""
    if not keywords or not index.records:
        return []
    stop = index.stopwords()
    kw_ids = {kw.word_id for kw in keywords}
    cut = index.cutoff(settings.exclusion)
    scored: list[Scored] = []
    every: dict[int, int] = {}
    is_stop = stop.__contains__
    for rec in index:
        ut, rt = rec.user_tokens, rec.reply_tokens
        # keywords are never stop-words, so matching against all tokens = against kept ones
        m_u, l_u = len(kw_ids.intersection(ut)), len(ut) - sum(map(is_stop, ut))
        m_r, l_r = len(kw_ids.intersection(rt)), len(rt) - sum(map(is_stop, rt))
        s = _half(m_u, l_u, settings) + _half(m_r, l_r, settings)
        every[rec.id] = s
        if rec.id < cut and m_u + m_r >= 1 and s > settings.score_floor_units:
            scored.append(
                Scored(record_id=rec.id, s115=s, rank=s, matches=(m_u, m_r), kept=(l_u, l_r))
            )
    return _finish(index, scored, every, settings=settings, top=top, neighbour_score=every)
