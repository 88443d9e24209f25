"""Retrieval results: what a query returns in either mode, built from ranked record ids.

``assemble`` turns (record id, score) pairs, best first, into a ``Retrieval``: the pick, its
window and memory block (F11), and the candidates as ``Hit``s that carry the caller's
``source_ref`` and the exchange's timestamp (internal record ids stay inside). It also says
why nothing came back when the reason is the exclusion of the newest exchanges.
``ranked_retrieval`` runs the ranked mode (``ranked.rank``) and assembles its result.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime
from fractions import Fraction

from worldinfo._record import record
from worldinfo.sources.date_phrases import DateQuery
from worldinfo.sources.ranked import QueryTerm, rank
from worldinfo.sources.ranked_view import RankedView
from worldinfo.sources.retriever_index import Record, RetrieverIndex
from worldinfo.sources.retriever_keywords import Keyword
from worldinfo.sources.retriever_scoring import Scored
from worldinfo.sources.retriever_settings import RetrieverSettings


@record
class Hit:
    """One retrieved exchange, as the caller knows it.

    Args:
        source_ref: the identity the caller gave the exchange at ingest.
        timestamp: when it happened, if known.
        score: its score (Z-Waif mode: S115 / length_divisor; ranked mode: BM25).
        user: the user's text.
        reply: the character's reply.
    """

    source_ref: str
    timestamp: datetime | None
    score: float
    user: str
    reply: str


@record
class Retrieval:
    """The result of one query.

    Args:
        keywords: the selected keywords, best first (may be empty).
        pick: the winning record, or ``None`` (no memory).
        score: the winner's score, or ``None``.
        window: the records the block shows, oldest first (F11).
        block: the memory text; ``""`` when there is no memory.
        ranked: the best candidates, best first (as many as asked for; Z-Waif mode).
        hits: the best candidates as ``Hit``s, best first (both modes).
        terms: the ranked mode's query terms.
        date_query: the date phrase the ranked mode found in the question, if any.
        days: the span of days it searched (first, last), if any.
        note: why nothing was found, when the reason is not "no match" (e.g. every stored
            exchange is inside the exclusion, or no exchange carries the asked date).
    """

    keywords: tuple[Keyword, ...]
    pick: Record | None
    score: Scored | None
    window: tuple[Record, ...]
    block: str
    ranked: tuple[Scored, ...]
    hits: tuple[Hit, ...] = ()
    terms: tuple[QueryTerm, ...] = ()
    date_query: DateQuery | None = None
    days: tuple[date, date] | None = None
    note: str = ""


def format_block(window: Iterable[Record], *, settings: RetrieverSettings) -> str:
    """Build the memory block of F11 / O25 (header, one user and one reply line per record)."""
    parts = [settings.header]
    for rec in window:
        parts.append(f"{settings.user_label}: {rec.user}\n{settings.character_name}: {rec.reply}\n")
    parts.append(settings.footer)
    return "".join(parts)


def exclusion_note(n_records: int, exclusion: int) -> str:
    """Explain an empty result caused by the exclusion of the newest exchanges (F10)."""
    return (
        f"all {n_records} stored exchanges are among the newest {exclusion}, which are "
        "never retrieved because they are already in the prompt (settings.exclusion; "
        "0 searches everything)"
    )


def assemble(
    index: RetrieverIndex,
    hits: Sequence[tuple[int, float]],
    *,
    settings: RetrieverSettings,
    keywords: tuple[Keyword, ...],
    ranked: Sequence[Scored] = (),
    terms: tuple[QueryTerm, ...] = (),
    date_query: DateQuery | None = None,
    days: tuple[date, date] | None = None,
    note: str = "",
) -> Retrieval:
    """Build the ``Retrieval`` of ranked (record id, score) pairs, best first.

    Args:
        index: the store's index.
        hits: the candidates, best first.
        settings: window and block settings, and the exclusion for the note.
        keywords: the query's keywords.
        ranked: the Z-Waif mode's scores (empty in the ranked mode).
        terms: the ranked mode's query terms.
        date_query: the date phrase found, if any.
        days: the span searched, if any.
        note: why nothing was found, if known.

    Returns:
        The result.
    """
    records = index.records
    out = tuple(
        Hit(
            source_ref=records[rid].source_ref,
            timestamp=records[rid].timestamp,
            score=score,
            user=records[rid].user,
            reply=records[rid].reply,
        )
        for rid, score in hits
    )
    if not hits and not note and 0 < len(records) <= settings.exclusion:
        note = exclusion_note(len(records), settings.exclusion)
    window: tuple[Record, ...] = ()
    pick = None
    if hits:
        pick = records[hits[0][0]]
        prev, nxt = index.neighbours(
            pick.id, before=settings.window_before, after=settings.window_after
        )
        window = (*prev, pick, *nxt)
    return Retrieval(
        keywords=keywords,
        pick=pick,
        score=ranked[0] if ranked and hits else None,
        window=window,
        block=format_block(window, settings=settings) if pick is not None else "",
        ranked=tuple(ranked),
        hits=out,
        terms=terms,
        date_query=date_query,
        days=days,
        note=note,
    )


def ranked_retrieval(
    index: RetrieverIndex,
    view: RankedView,
    message: str,
    previous_reply: str,
    *,
    lore: frozenset[str],
    top: int,
    now: datetime | date | None,
    settings: RetrieverSettings,
) -> Retrieval:
    """Run the ranked mode (``ranked.rank``) and assemble its result (best ``top`` hits)."""
    today = now.date() if isinstance(now, datetime) else now
    found = rank(
        index, view, message, previous_reply, lore=lore, settings=settings, today=today, top=top
    )
    kws = tuple(
        Keyword(
            word=q.word,
            word_id=index.word_ids.get(q.word, view.words_of[q.term][0]),
            score=Fraction(q.weight * q.idf).limit_denominator(10**9),
            count=q.df,
            from_reply=q.from_reply,
            lore=q.lore,
        )
        for q in found.terms
    )
    return assemble(
        index,
        found.ranked,
        settings=settings,
        keywords=kws,
        terms=found.terms,
        date_query=found.date_query,
        days=found.days,
        note=found.note,
    )
