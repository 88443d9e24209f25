"""The retriever's bulk and integer fast paths against the straightforward forms they replace.

``tokenize_batch`` against ``tokenize`` per text; ``select_keywords`` (integer pairs, a common
denominator) against the same rules written with ``Fraction`` values; ``add_many`` of
batches of any size against ``add`` one record at a time.
"""

from __future__ import annotations

import random
from array import array
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo.sources.retriever_index import Record, RetrieverIndex, token_ids
from worldinfo.sources.retriever_keywords import (
    Keyword,
    is_stopword,
    select_keywords,
    stopword_limit,
    word_value,
)
from worldinfo.sources.retriever_settings import Punctuation, RetrieverSettings
from worldinfo.sources.retriever_tokenize import tokenize, tokenize_batch

_TEXT = st.text(alphabet=st.sampled_from("ab c,.!\n\t\0\x1c\x85\u2028\xa0'’éÉ-ẞΣİ*"), max_size=30)


def _per_text(words: list[str], cuts: list[int]) -> list[list[str]]:
    return [words[cuts[k] + 1 : cuts[k + 1]] for k in range(len(cuts) - 1)]


@given(texts=st.lists(_TEXT, max_size=8), unicode=st.booleans())
@settings(max_examples=300, deadline=None)
def test_tokenize_batch_is_tokenize_per_text(texts: list[str], unicode: bool) -> None:
    mode: Punctuation = "unicode" if unicode else "ascii"
    words, cuts = tokenize_batch(texts, punctuation=mode)
    assert len(cuts) == len(texts) + 1
    assert cuts[0] == -1
    assert cuts[-1] == (len(words) if texts else -1)
    assert all(words[c] == "\0" for c in cuts[1:-1])
    assert _per_text(words, cuts) == [tokenize(t, punctuation=mode) for t in texts]


def test_tokenize_batch_keeps_texts_apart() -> None:
    texts = ["Hello, World!", "", "  ", "it's\nme", "a\0b"]
    words, cuts = tokenize_batch(texts[:4])
    assert _per_text(words, cuts) == [["hello", "world"], [], [], ["its", "me"]]
    words, cuts = tokenize_batch(texts)  # a NUL in a text: one by one, the same layout
    assert _per_text(words, cuts) == [tokenize(t) for t in texts]
    assert tokenize_batch([]) == ([], [-1])


def _reference_keywords(
    user: list[str],
    reply: list[str],
    *,
    counts: dict[str, int],
    total: int,
    lore: frozenset[str],
    settings: RetrieverSettings,
) -> tuple[Keyword, ...]:
    """F6-F8 with Fraction values, compared and sorted as Fractions (the former code)."""
    best: dict[str, tuple[Fraction, int, Keyword]] = {}
    position = 0
    for from_reply, tokens in ((False, user), (True, reply)):
        for tok in tokens:
            count = counts.get(tok, 0)
            if tok not in counts or count <= 0 or is_stopword(count, total, settings):
                continue
            value = word_value(count, settings)
            boosted = settings.lore_boost and tok in lore
            if boosted:
                value = (value + 1) / 2
            if from_reply:
                value *= settings.reply_factor
            pos, position = position, position + 1
            prev = best.get(tok)
            if prev is not None and (prev[0], -prev[1]) >= (value, -pos):
                continue
            kw = Keyword(
                word=tok,
                word_id=sorted(counts).index(tok),
                score=value,
                count=count,
                from_reply=from_reply,
                lore=boosted,
            )
            best[tok] = (value, pos, kw)
    chosen: list[Keyword] = []
    taken = 0
    for _, _, kw in sorted(best.values(), key=lambda t: (-t[0], t[1])):
        if len(chosen) >= settings.slots:
            break
        if kw.from_reply:
            if taken >= settings.reply_cap:
                continue
            taken += 1
        chosen.append(kw)
    return tuple(chosen)


_WORDS = [f"w{i}" for i in range(12)]


@given(
    user=st.lists(st.sampled_from(_WORDS), max_size=15),
    reply=st.lists(st.sampled_from(_WORDS), max_size=15),
    counts=st.lists(st.integers(0, 40), min_size=len(_WORDS), max_size=len(_WORDS)),
    lore=st.frozensets(st.sampled_from(_WORDS), max_size=4),
    factor=st.sampled_from([Fraction(97, 100), Fraction(1), Fraction(1, 3), Fraction(2)]),
    offset=st.integers(0, 25),
    scale=st.integers(1, 30),
    boost=st.booleans(),
)
@settings(max_examples=400, deadline=None)
def test_select_keywords_matches_the_fraction_form(
    user: list[str],
    reply: list[str],
    counts: list[int],
    lore: frozenset[str],
    factor: Fraction,
    offset: int,
    scale: int,
    boost: bool,
) -> None:
    rules = RetrieverSettings(
        reply_factor=factor, value_offset=offset, value_scale=scale, lore_boost=boost
    )
    table = dict(zip(_WORDS, counts, strict=True))
    ids = {w: i for i, w in enumerate(sorted(table))}
    total = max(sum(counts), 1) * 30  # mostly no stop-words ...
    if counts[0] % 3 == 0:
        total = max(sum(counts), 1)  # ... and sometimes many
    got = select_keywords(
        user,
        reply,
        lookup=lambda w: (ids[w], table[w]),
        total=total,
        lore=lore,
        settings=rules,
    )
    want = _reference_keywords(user, reply, counts=table, total=total, lore=lore, settings=rules)
    assert got == want


def _records(n: int, seed: int) -> tuple[list[str], list[tuple[int, str, list[str], list[str]]]]:
    rng = random.Random(seed)
    vocab = [f"v{i}" for i in range(60)]
    out = []
    for i in range(n):
        user = rng.choices(vocab, weights=[1 / (k + 1) for k in range(60)], k=rng.randint(0, 9))
        reply = rng.choices(vocab, k=rng.randint(0, 20))
        out.append((i + 1, f"r{i}", user, reply))
    return vocab, out


def _record(ix: RetrieverIndex, rid: int, ref: str, user: list[str], reply: list[str]) -> Record:
    """A record of one generated row, its words numbered by ``ix``."""
    return Record(
        id=rid,
        source_ref=ref,
        user=ref,
        reply=ref,
        user_tokens=token_ids(ix, user),
        reply_tokens=token_ids(ix, reply),
    )


def _index_state(ix: RetrieverIndex) -> tuple[object, ...]:
    ix.sync()
    return (
        ix.words,
        ix.counts,
        ix.total,
        [list(p) for p in ix.post[0]],
        [list(p) for p in ix.post[1]],
        list(ix.kept[0]),
        list(ix.kept[1]),
        ix.stopwords(),
        ix.live_ids,
    )


def test_add_many_in_chunks_builds_the_index_add_builds() -> None:
    settings_ = RetrieverSettings(stopword_share=Fraction(1, 20))  # stop-words appear early
    _, rows = _records(300, seed=7)
    one, many = RetrieverIndex(settings=settings_), RetrieverIndex(settings=settings_)
    for rid, ref, user, reply in rows:
        one.add(_record(one, rid, ref, user, reply))
        if rid % 40 == 0:
            one.sync()  # a query now and then: the stop-word set is not empty any more
    chunk: list[Record] = []
    sizes = iter([1, 7, 64, 3, 100, 500])
    want = next(sizes)
    for rid, ref, user, reply in rows:
        chunk.append(_record(many, rid, ref, user, reply))
        if len(chunk) == want:
            many.add_many(chunk)
            chunk, want = [], next(sizes)
            many.sync()
    many.add_many(chunk)
    assert isinstance(many.post[0][0], array)
    assert _index_state(one) == _index_state(many)
    for rid in (5, 6, 150):
        one.remove(rid)
        many.remove(rid)
    assert _index_state(one) == _index_state(many)


def test_kept_counts_left_to_sync_match_a_count_from_scratch() -> None:
    """Records added while there are stop-words are counted by the next sync (not by
    add_many); interleaved with removals and syncs, every live record's kept counts equal
    its tokens minus the stop-words computed afresh."""
    settings_ = RetrieverSettings(stopword_share=Fraction(1, 20))
    _, rows = _records(400, seed=11)
    ix = RetrieverIndex(settings=settings_)
    for k in range(0, len(rows), 25):
        ix.add_many([_record(ix, *row) for row in rows[k : k + 25]])
        if k % 75 == 0:
            ix.remove(rows[k][0])
        if k % 50 == 0:
            ix.sync()
            stop = ix.stopwords()
            assert stop  # the case under test: stop-words exist before the next add
            for rec in ix:
                want = tuple(
                    len([t for t in h if t not in stop])
                    for h in (rec.user_tokens, rec.reply_tokens)
                )
                assert ix.kept_counts(rec.id) == want, rec.id


@given(seed=st.integers(0, 2**16), first=st.integers(1, 60), removed=st.integers(0, 5))
@settings(max_examples=40, deadline=None)
def test_kept_counts_of_a_bulk_add_match_a_count_from_scratch(
    seed: int, first: int, removed: int
) -> None:
    """A batch holding most of the records, added while there are stop-words, is counted
    through the stop-words' postings (deleted records' ids still in them); a small batch
    through its tokens. Both give every live record its tokens minus the stop-words."""
    settings_ = RetrieverSettings(stopword_share=Fraction(1, 20))
    _, rows = _records(200, seed=seed)
    ix = RetrieverIndex(settings=settings_)
    ix.add_many([_record(ix, *row) for row in rows[:first]])
    ix.sync()
    for row in rows[:removed]:
        ix.remove(row[0])
    ix.add_many([_record(ix, *row) for row in rows[first:-3]])
    ix.sync()
    ix.add_many([_record(ix, *row) for row in rows[-3:]])
    ix.sync()
    stop = ix.stopwords()
    for rec in ix:
        want = tuple(
            len([t for t in h if t not in stop]) for h in (rec.user_tokens, rec.reply_tokens)
        )
        assert ix.kept_counts(rec.id) == want, rec.id


@given(
    count=st.integers(-5, 10_000),
    total=st.integers(0, 10**7),
    num=st.integers(0, 50),
    den=st.integers(1, 100_000),
)
@settings(max_examples=500, deadline=None)
def test_stopword_limit_is_is_stopword(count: int, total: int, num: int, den: int) -> None:
    rules = RetrieverSettings(stopword_share=Fraction(num, den))
    assert (count > stopword_limit(total, rules)) is is_stopword(count, total, rules)


def test_stopwords_is_the_rule_per_word() -> None:
    ix = RetrieverIndex(settings=RetrieverSettings(stopword_share=Fraction(1, 40)))
    _, rows = _records(80, seed=3)
    for rid, ref, user, reply in rows:
        ix.add(_record(ix, rid, ref, user, reply))
    want = {w for w, c in enumerate(ix.counts) if is_stopword(c, ix.total, ix.stop_rule)}
    assert want  # the share is high enough for some stop-words, and not all are
    assert len(want) < len(ix.counts)
    assert ix.stopwords() == want
    assert all(ix.is_stop(w) is (w in want) for w in range(len(ix.counts)))
