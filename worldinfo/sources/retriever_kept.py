"""Kept-token counts (spec F5, F13): per record half, the tokens that are not stop-words.

Scoring's length penalty counts only the tokens of a half that are not stop-words (L). The
index caches L per record and half; this module computes it afresh for given records, in
the cheaper of two equal ways: a few records test their tokens against the stop-words; a
bulk (most of the records, as after an ingest or a load) counts the stop-words' postings
once per record instead, one ``Counter`` in C over the stop-word occurrences only, which
are a fraction of all tokens.
"""

from __future__ import annotations

import itertools
from array import array
from collections import Counter
from collections.abc import Mapping, Sequence

from worldinfo.sources.retriever_record import Record


def count_kept(
    rids: Sequence[int],
    *,
    records: Mapping[int, Record],
    postings: tuple[Sequence[array[int]], Sequence[array[int]]],
    stop: set[int],
    kept: tuple[array[int], array[int]],
) -> None:
    """Set ``kept`` of the live records among ``rids``: a half's tokens minus its
    stop-word occurrences.

    Args:
        rids: record ids (ids of deleted records are skipped).
        records: the live records by id.
        postings: per half, the ids of the records holding each word, once per occurrence
            (ids of deleted records may remain).
        stop: the stop-word ids.
        kept: per half, the counts to set, indexed by record id.
    """
    ku, kr = kept
    if 2 * len(rids) > len(records):
        live = [rec for rec in map(records.get, rids) if rec is not None]
        for half, counts in enumerate(kept):  # one half's Counter held at a time
            stopped = Counter(itertools.chain.from_iterable(map(postings[half].__getitem__, stop)))
            of = stopped.get
            for one in live:
                counts[one.id] = len(one.reply_tokens if half else one.user_tokens) - of(one.id, 0)
            del stopped, of
        return
    contains = stop.__contains__
    for rid in rids:
        rec = records.get(rid)
        if rec is not None:
            ut, rt = rec.user_tokens, rec.reply_tokens
            ku[rid] = len(ut) - sum(map(contains, ut))
            kr[rid] = len(rt) - sum(map(contains, rt))
