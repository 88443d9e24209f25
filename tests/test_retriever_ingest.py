"""The bulk paths of ingest give exactly what counting every token one by one gives."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from worldinfo.sources.retriever_chat import Exchange
from worldinfo.sources.retriever_index import Record, RetrieverIndex, token_ids
from worldinfo.sources.store_sqlite import SqliteStore


def _rows(n: int, *, seed: int) -> list[tuple[list[str], list[str]]]:
    rng = random.Random(seed)
    vocab = [f"v{i}" for i in range(300)]
    weights = [1 / (k + 1) for k in range(300)]
    return [
        (rng.choices(vocab, weights, k=rng.randint(0, 9)), rng.choices(vocab, k=rng.randint(0, 30)))
        for _ in range(n)
    ]


def _counted(ix: RetrieverIndex) -> list[int]:
    """Every word's occurrences in the live records, counted token by token."""
    seen = Counter(t for rec in ix for half in (rec.user_tokens, rec.reply_tokens) for t in half)
    return [seen[w] for w in range(len(ix.words))]


def test_counts_equal_a_token_count_through_bulk_adds_and_removals() -> None:
    """Big batches (more tokens than words: counts read off the postings) and small ones
    (counted per add), before and after removals leave postings of deleted records."""
    ix = RetrieverIndex()
    rows = _rows(900, seed=3)
    rid = 0
    for size in (200, 1, 3, 150, 40, 2, 300, 5, 199):
        batch = []
        for user, reply in rows[rid : rid + size]:
            rid += 1
            batch.append(
                Record(
                    id=rid,
                    source_ref=f"r{rid}",
                    user="",
                    reply="",
                    user_tokens=token_ids(ix, user),
                    reply_tokens=token_ids(ix, reply),
                )
            )
        ix.add_many(batch)
        if size in (150, 2):
            for gone in range(rid - 20, rid, 3):
                ix.remove(gone)
        assert ix.counts == _counted(ix), size
        assert ix.total == sum(ix.counts)
    assert ix.has_dead_postings  # the case of counting per add after a removal was reached


def _store_state(store: SqliteStore) -> tuple[object, ...]:
    index = store.index
    rows = [
        (r.id, r.source_ref, list(r.user_tokens), list(r.reply_tokens)) for r in store.records()
    ]
    return index.words, index.counts, index.total, rows


@pytest.mark.parametrize("nul", ["", "\0", "a\0b", "\0 \0"])
def test_a_batch_numbers_new_words_as_one_by_one_ingests(tmp_path: Path, nul: str) -> None:
    """New words, repeats of them, known words and NUL tokens (a text holding NUL takes the
    per-text tokeniser): the batch gives every word the id one-by-one ingests give."""
    rng = random.Random(5)
    vocab = [f"w{i}" for i in range(40)]
    items = [
        Exchange(
            source_ref=f"c#{i}",
            user=" ".join([*rng.choices(vocab, k=4), f"new{i}", nul if i == 7 else "", "w1"]),
            reply=" ".join([f"new{i}", f"late{i // 2}", *rng.choices(vocab, k=6)]),
        )
        for i in range(60)
    ]
    one, many = SqliteStore(tmp_path / "one.db"), SqliteStore(tmp_path / "many.db")
    for ex in items:
        one.ingest(ex.user, ex.reply, source_ref=ex.source_ref)
    many.ingest_many(items[:25])
    many.ingest_many(items[25:])
    assert _store_state(many) == _store_state(one)
    one.close()
    many.close()
    with SqliteStore(tmp_path / "many.db") as again:
        assert _store_state(again) == _store_state(one)
