"""The ranked memory mode: BM25 over exchanges, Z-Waif's query-side weights, dates.

Each live record (one exchange, user text + reply) is a document of *terms*
(``ranked_terms.term``: function words dropped, Porter steps 1 and 5a). A record's score is

    sum over query terms t of  w_t * idf_t * tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))

with the published defaults k1 = 1.2, b = 0.75 (S. Robertson and H. Zaragoza, "The
Probabilistic Relevance Framework: BM25 and Beyond", 2009, section 3.3; Lucene's and
Elasticsearch's defaults) and Lucene's non-negative idf = ln(1 + (N - df + 0.5) / (df + 0.5)).
N, df and avgdl are taken over every live record (the corpus), eligible or not.

Query side, after Z-Waif: the user message's terms weigh 1; at most ``reply_cap`` (2) terms
of the character's previous reply join, the rarest first, at ``reply_factor`` (0.97); a lore
token's idf is pulled halfway to the idf of a word seen once (Z-Waif's (v + 1) / 2 with 1 =
the value of a count-1 word).

Relevance floor: a record is a candidate only if it contains a query term whose
Robertson-Sparck Jones weight ln((N - df + 0.5) / (df + 0.5)) is >= 0, i.e. a term found in at
most half of the exchanges -- a word most exchanges contain is no evidence on its own.

Neighbour evidence: a candidate ranks by own + w * (previous + next live record's own score),
w = ``neighbour_weight``, default 1: exactly the ``central_score`` Z-Waif computed and never
used (spec O23). In a chat the answer often sits in the exchange after the one that repeats
the question's words (the character asks "which movie?", the user answers next turn), so the
neighbours' evidence counts. Candidates are still decided by their own terms; rank ties go to
the higher own score, then the most recent record.

Dates (``date_phrases``): when the question names a day or span and some record has a
timestamp, only the records of that span are eligible (none -> no memory); the phrase's words
are not searched for; every record of the span is a candidate, those matching no term
ranked after the matching ones, by their number of distinct terms (content before
greetings).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from datetime import date

from worldinfo._record import record
from worldinfo.sources.date_phrases import DateQuery, find_date
from worldinfo.sources.ranked_terms import STOP_WORDS, stem
from worldinfo.sources.ranked_view import RankedView
from worldinfo.sources.retriever_index import RetrieverIndex
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.retriever_tokenize import tokenize


@record
class QueryTerm:
    """One term of a ranked query.

    Args:
        word: the query token it came from (first occurrence).
        term: the term (stem).
        df: exchanges containing it.
        idf: its idf after the lore pull.
        weight: 1 for the user message, ``reply_factor`` for the previous reply.
        from_reply: whether it came from the previous reply.
        lore: whether the lore pull applied.
    """

    word: str
    term: str
    df: int
    idf: float
    weight: float
    from_reply: bool
    lore: bool


@record
class RankedResult:
    """What the ranked scorer found: terms, ranked (record id, score), the date, a note."""

    terms: tuple[QueryTerm, ...]
    ranked: tuple[tuple[int, float], ...]
    date_query: DateQuery | None
    days: tuple[date, date] | None
    note: str


def _days(dq: DateQuery, view: RankedView, today: date) -> tuple[date, date] | None:
    if dq.anchor == "span":
        assert dq.first_day is not None and dq.last_day is not None
        return dq.first_day, dq.last_day
    days = sorted(set(view.days.values()))
    if dq.anchor == "first":
        return (days[0], days[0]) if days else None
    before = [d for d in days if d < today]
    last = before[-1] if before else (days[-1] if days else None)
    return None if last is None else (last, last)


def _query_terms(
    view: RankedView,
    message: str,
    previous_reply: str,
    *,
    lore: frozenset[str],
    settings: RetrieverSettings,
) -> tuple[list[QueryTerm], dict[str, Counter[int]]]:
    n = len(view.index.records)
    lore_terms = {view.term(t) for t in lore} - {""}
    top_idf = math.log(1 + (n - 0.5) / 1.5)
    out: dict[str, QueryTerm] = {}
    reply: list[QueryTerm] = []
    freqs: dict[str, Counter[int]] = {}
    for from_reply, text in ((False, message), (True, previous_reply)):
        for token in dict.fromkeys(tokenize(text, punctuation=settings.punctuation)):
            t = view.term(token)
            if not t or t in out or any(q.term == t for q in reply):
                continue
            tf = freqs[t] = view.tf(t)
            if not tf:
                continue
            df = len(tf)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            pulled = settings.lore_boost and t in lore_terms
            if pulled:
                idf = (idf + top_idf) / 2
            weight = float(settings.reply_factor) if from_reply else 1.0
            q = QueryTerm(
                word=token,
                term=t,
                df=df,
                idf=idf,
                weight=weight,
                from_reply=from_reply,
                lore=pulled,
            )
            if from_reply:
                reply.append(q)
            else:
                out[t] = q
    reply.sort(key=lambda q: -q.idf)
    return [*out.values(), *reply[: settings.reply_cap]], freqs


def rank(
    index: RetrieverIndex,
    view: RankedView,
    message: str,
    previous_reply: str = "",
    *,
    lore: frozenset[str],
    settings: RetrieverSettings,
    today: date | None,
    top: int,
) -> RankedResult:
    """Rank the eligible records for a question (see the module docstring).

    Args:
        index: the store's index.
        view: its term view (refreshed here).
        message: the user's question.
        previous_reply: the character's reply before it.
        lore: lore tokens (F9).
        settings: constants (``bm25_k1``, ``bm25_b``, ``neighbour_weight``, ``dates`` ...).
        today: the reference day for relative dates (``None``: the newest record's day).
        top: how many candidates to return.

    Returns:
        The query terms and the best ``top`` candidates as (record id, score), best first.
    """
    view.refresh()
    if today is None and view.days:
        today = max(view.days.values())
    dq = find_date(message, today=today) if settings.dates and today and view.days else None
    days = None
    if dq is not None:
        assert today is not None
        days = _days(dq, view, today)
        message = dq.remove_from(message)
    terms, freqs = _query_terms(view, message, previous_reply, lore=lore, settings=settings)
    cut = index.cutoff(settings.exclusion)
    n = len(index.records)
    avgdl = view.total_dl / n if n else 0.0
    k1, b = settings.bm25_k1, settings.bm25_b
    own: dict[int, float] = {}
    evidence: set[int] = set()
    for q in terms:
        informative = 2 * q.df <= n
        for rid, tf in freqs[q.term].items():
            norm = k1 * (1 - b + b * view.dl[rid] / avgdl) if avgdl else k1
            own[rid] = own.get(rid, 0.0) + q.weight * q.idf * tf * (k1 + 1) / (tf + norm)
            if informative:
                evidence.add(rid)
    if days is not None:
        span = {rid for rid, day in view.days.items() if days[0] <= day <= days[1]}
        candidates = {rid for rid in span if rid < cut}
    else:
        span = None
        candidates = {rid for rid in evidence if rid < cut}
    w = settings.neighbour_weight
    scored: list[tuple[float, float, int, int]] = []
    for rid in candidates:
        mine = own.get(rid, 0.0)
        s = mine
        if w and rid in own:
            s += w * sum(own.get(x, 0.0) for x in view.neighbour_ids(rid))
        distinct = 0 if rid in own else len({view.term_of[x] for x in _tokens(index, rid)} - {""})
        scored.append((s, mine, distinct, rid))
    best = heapq.nlargest(max(top, 1), scored)
    note = ""
    if span is not None and not span:
        note = f"no stored exchange dated {_span_text(days)}"
    return RankedResult(
        terms=tuple(terms),
        ranked=tuple((rid, s) for s, _, _, rid in best),
        date_query=dq,
        days=days,
        note=note,
    )


def _tokens(index: RetrieverIndex, rid: int) -> tuple[int, ...]:
    rec = index.records[rid]
    return (*rec.user_tokens, *rec.reply_tokens)


def _span_text(days: tuple[date, date] | None) -> str:
    if days is None:
        return "on that day"
    if days[0] == days[1]:
        return f"on {days[0].isoformat()}"
    return f"from {days[0].isoformat()} to {days[1].isoformat()}"


__all__ = ["STOP_WORDS", "QueryTerm", "RankedResult", "RankedView", "rank", "stem"]
