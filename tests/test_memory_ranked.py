"""The ranked memory mode: terms, BM25 ranking, floor, query-side weights, neighbours, dates."""

from __future__ import annotations

import math
from datetime import date, datetime

import pytest

from worldinfo.memory import MemoryStore, RetrieverSettings
from worldinfo.sources.ranked_terms import STOP_WORDS, stem, term
from worldinfo.sources.retriever_tokenize import tokenize

RANKED = RetrieverSettings(ranking="ranked", exclusion=0)

# Porter (1980)'s own examples for steps 1a-1c, then step 5a (a final e) where it applies.
PORTER = {
    "caresses": "caress",
    "ponies": "poni",
    "ties": "ti",
    "caress": "caress",
    "cats": "cat",
    "feed": "feed",
    "agreed": "agre",
    "plastered": "plaster",
    "bled": "bled",
    "motoring": "motor",
    "sing": "sing",
    "conflated": "conflat",
    "troubled": "troubl",
    "sized": "size",
    "hopping": "hop",
    "tanned": "tan",
    "falling": "fall",
    "hissing": "hiss",
    "fizzed": "fizz",
    "failing": "fail",
    "filing": "file",
    "happy": "happi",
    "sky": "sky",
    "probate": "probat",
    "rate": "rate",
    "cease": "ceas",
}


@pytest.mark.parametrize(("word", "expected"), sorted(PORTER.items()))
def test_porter_step1(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_terms_drop_function_words_and_unicode_apostrophes() -> None:
    assert term("don’t") == "" and term("dont") == "" and "what" in STOP_WORDS
    assert term("recommended") == term("recommend") == "recommend"
    assert term("movies") == term("movie") and term("hiking") == term("hike")
    assert term("café") == "café" and term("ok") == "ok"


def _store(pairs: list[tuple[str, str]], **kw: object) -> MemoryStore:
    settings = RetrieverSettings.from_config({}, ranking="ranked", exclusion=0, **kw)
    store = MemoryStore(settings=settings)
    for i, (u, r) in enumerate(pairs):
        store.ingest(u, r, source_ref=f"ex{i}")
    return store


FILLER = [
    ("Good morning, how are you?", "I'm well, thanks for asking."),
    ("The weather is grey today.", "Grey days are good for reading."),
    ("I had soup for lunch.", "Soup sounds warming."),
    ("My train was late again.", "That is annoying, sorry to hear it."),
]


def _refs(store: MemoryStore, question: str, **kw: object) -> list[str]:
    return [h.source_ref for h in store.retrieve(question, top=5, **kw).hits]  # type: ignore[arg-type]


def store_pairs() -> list[tuple[str, str]]:
    return [*FILLER, ("I adopted a kitten named Pepper.", "Pepper is a sweet name.")]


def test_bm25_score_is_the_published_formula() -> None:
    store = _store([*FILLER, ("I adopted a kitten named Pepper.", "Pepper is a sweet name.")])
    hit = store.retrieve("Pepper", top=1).hits[0]
    n, df, tf = 5, 1, 2
    dls = [len([t for t in map(term, tokenize(f"{u} {r}")) if t]) for u, r in store_pairs()]
    avgdl, k1, b = sum(dls) / n, 1.2, 0.75
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    own = idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dls[4] / avgdl))
    assert hit.source_ref == "ex4"
    assert hit.score == pytest.approx(own)  # its neighbour ex3 has no "pepper"


def test_floor_no_real_match_returns_nothing() -> None:
    store = _store(FILLER)
    got = store.retrieve("What is my favourite colour?")
    assert got.hits == () and got.pick is None and got.block == "" and got.note == ""


def test_floor_a_word_in_most_exchanges_is_not_evidence() -> None:
    pairs = [(f"I like item{i}.", f"Nice, item{i} is good.") for i in range(5)]
    store = _store(pairs)
    assert _refs(store, "what do I like?") == []  # "like" is in all 5 exchanges
    assert _refs(store, "item3")[0] == "ex3"


def test_stemming_meets_inflections() -> None:
    store = _store([*FILLER, ("You recommended some painters.", "Yes: Vermeer and Hokusai.")])
    assert _refs(store, "Which painter did you recommend?")[0] == "ex4"
    plain = _store(
        [*FILLER, ("You recommended some painters.", "Yes: Vermeer and Hokusai.")],
        stemming=False,
    )
    assert _refs(plain, "Which painter did you recommend?") == []


def test_previous_reply_gives_at_most_two_terms_at_097() -> None:
    pairs = [*FILLER, ("alpha", "x"), ("beta", "x"), ("gamma", "x"), ("delta", "x")]
    store = _store(pairs, neighbour_weight=0)
    got = store.retrieve("delta", "alpha beta gamma")
    from_reply = [t for t in got.terms if t.from_reply]
    assert [t.term for t in got.terms if not t.from_reply] == ["delta"]
    assert len(from_reply) == 2 and all(t.weight == pytest.approx(0.97) for t in from_reply)
    assert got.hits[0].source_ref == "ex7"  # the user's own word outranks the reply's


def test_lore_token_pulls_idf_halfway_to_a_word_seen_once() -> None:
    pairs = [*FILLER, ("whisper runs", "x"), ("whisper again", "x"), ("whisper", "x")]
    store = _store(pairs)
    plain = store.retrieve("whisper").terms[0]
    pulled = store.retrieve("whisper", lore=frozenset({"whisper"})).terms[0]
    top = math.log(1 + (7 - 0.5) / 1.5)
    assert pulled.lore and not plain.lore
    assert pulled.idf == pytest.approx((plain.idf + top) / 2)


def test_neighbour_evidence_lifts_the_answer_after_the_question() -> None:
    pairs = [
        *FILLER,
        ("I watched something last night.", "Which film was it?"),
        ("It was a film about a lighthouse.", "Sounds moody."),
        ("Then I slept.", "Good night."),
        ("It was a film about a volcano.", "Sounds moody."),
        ("Then I slept.", "Good night."),
    ]
    question = "Which film did I watch?"
    without = _store(pairs, neighbour_weight=0)
    with_n = _store(pairs)
    assert _refs(without, question).index("ex7") < _refs(without, question).index("ex5")
    assert _refs(with_n, question).index("ex5") < _refs(with_n, question).index("ex7")
    assert "ex6" not in _refs(with_n, question)  # a neighbour alone is not a candidate


def _dated() -> MemoryStore:
    store = MemoryStore(settings=RANKED)
    days = ["2023-04-27", "2023-04-27", "2023-04-28", "2023-04-30", "2023-04-30"]
    texts = [
        ("Hi, I'm Emily.", "Nice to meet you, Emily."),
        ("I love painting and piano.", "Lovely hobbies!"),
        ("I made dumplings today.", "Dumplings are great."),
        ("I went to a museum.", "Which exhibition?"),
        ("An exhibition of old maps.", "Maps tell stories."),
    ]
    for i, ((u, r), d) in enumerate(zip(texts, days, strict=True)):
        store.ingest(u, r, source_ref=f"ex{i}", timestamp=d)
    return store


def test_a_named_day_ranks_that_days_exchanges_only() -> None:
    store = _dated()
    got = store.retrieve("What exhibition did I see on April 30th?", top=5)
    assert {h.source_ref for h in got.hits} == {"ex3", "ex4"}
    assert {h.timestamp for h in got.hits} == {datetime(2023, 4, 30)}
    assert got.days == (date(2023, 4, 30), date(2023, 4, 30))
    assert "april" not in {t.term for t in got.terms}


def test_an_empty_day_returns_nothing_and_says_why() -> None:
    got = _dated().retrieve("What did I cook on April 29th?")
    assert got.hits == () and got.pick is None
    assert got.note == "no stored exchange dated on 2023-04-29"


def test_first_conversation_and_relative_days() -> None:
    store = _dated()
    first = store.retrieve("What did we talk about in our first conversation?", top=5)
    assert {h.source_ref for h in first.hits} == {"ex0", "ex1"}
    assert first.hits[0].source_ref == "ex1"  # content before the greeting
    got = store.retrieve("what did I make yesterday?", now=datetime(2023, 4, 29, 10))
    assert [h.source_ref for h in got.hits] == ["ex2"]
    assert _dated().retrieve("what did I make yesterday?").hits == ()  # today = 04-30


def test_undated_stores_ignore_date_phrases() -> None:
    store = _store([*FILLER, ("I make dumplings.", "Yum.")])
    assert _refs(store, "What did I make on April 29th?") == ["ex4"]
    assert store.retrieve("What did I make on April 29th?").days is None


def test_hits_carry_the_callers_refs_and_dates_in_both_modes() -> None:
    for ranking in ("zwaif", "ranked"):
        settings = RetrieverSettings(ranking=ranking, exclusion=0, stopword_share=1)  # type: ignore[arg-type]
        store = MemoryStore(settings=settings)
        for i, (u, r) in enumerate([*FILLER, ("Quokkas are my favourite.", "Cute!")]):
            store.ingest(u, r, source_ref=f"chat-7/{i}", timestamp=f"2024-01-0{i + 1}")
        hit = store.retrieve("quokkas", top=3).hits[0]
        assert hit.source_ref == "chat-7/4" and hit.timestamp == datetime(2024, 1, 5)
        assert hit.user == "Quokkas are my favourite." and hit.reply == "Cute!"


@pytest.mark.parametrize("ranking", ["zwaif", "ranked"])
def test_retrieve_none_is_a_clear_error(ranking: str) -> None:
    store = MemoryStore(settings=RetrieverSettings(ranking=ranking))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"message must be the text to search for .*NoneType"):
        store.retrieve(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="previous_reply"):
        store.retrieve("hi", None)  # type: ignore[arg-type]


@pytest.mark.parametrize("ranking", ["zwaif", "ranked"])
def test_default_exclusion_hiding_everything_is_reported(ranking: str) -> None:
    settings = RetrieverSettings(ranking=ranking)  # type: ignore[arg-type]
    store = MemoryStore(settings=settings)
    for i, (u, r) in enumerate([*FILLER, ("Quokkas are my favourite.", "Cute!")]):
        store.ingest(u, r, source_ref=str(i))
    got = store.retrieve("quokkas")
    assert got.hits == ()
    assert got.note.startswith("all 5 stored exchanges are among the newest 20")
    assert MemoryStore(settings=settings).retrieve("quokkas").note == ""  # empty store


def test_unknown_ranking_is_rejected() -> None:
    with pytest.raises(ValueError, match="ranking must be one of"):
        RetrieverSettings(ranking="fuzzy")  # type: ignore[arg-type]


def test_deletes_and_appends_keep_the_view_equal_to_a_fresh_store() -> None:
    pairs = [*FILLER, ("Quokkas are my favourite.", "Cute!"), ("More quokkas.", "Again!")]
    store = _store(pairs)
    first = store.retrieve("quokkas", top=5).hits
    assert store.delete("ex4") and store.ingest("Quokka facts.", "Fun.", source_ref="ex6")
    again = store.retrieve("quokkas", top=5).hits
    fresh = MemoryStore(settings=RANKED)
    for ref, (u, r) in [(f"ex{i}", p) for i, p in enumerate(pairs) if i != 4]:
        fresh.ingest(u, r, source_ref=ref)
    fresh.ingest("Quokka facts.", "Fun.", source_ref="ex6")
    expected = fresh.retrieve("quokkas", top=5).hits
    assert [(h.source_ref, h.score) for h in again] == [(h.source_ref, h.score) for h in expected]
    assert [h.source_ref for h in first] != [h.source_ref for h in again]


def test_overlong_tokens_are_not_stemmed() -> None:
    from worldinfo.sources.ranked_terms import MAX_STEM

    assert stem("walks" * 20) == "walks" * 20
    assert len("walking" * 7) <= MAX_STEM and stem("walking" * 7) == "walking" * 6 + "walk"
