"""Retriever units: tokeniser (F2), keywords (F6-F9), scoring and the index (F12-F14)."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from worldinfo.sources.retriever_keywords import select_keywords, word_value
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.retriever_tokenize import lore_tokens, tokenize
from worldinfo.sources.store_memory import MemoryStore

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "zwaif"


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Hello, world!", ["hello", "world"]),
        ("don't", ["dont"]),
        ("don’t stop", ["don’t", "stop"]),
        ("well-known Z-Waif", ["wellknown", "zwaif"]),
        ("*smiles* hi", ["smiles", "hi"]),
        ("Well . . . okay", ["well", "okay"]),
        ("a   b", ["a", "b"]),
        ("tab\there a\r\nb", ["tab", "here", "a", "b"]),
        ("Straße", ["strasse"]),
        ("", []),
        ("   ", []),
    ],
)
def test_tokenize_ascii(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


def test_tokenize_unicode_mode_removes_unicode_punctuation() -> None:
    assert tokenize("don’t «stop» — ok…", punctuation="unicode") == ["dont", "stop", "ok"]
    assert tokenize("don't", punctuation="unicode") == tokenize("don’t", punctuation="unicode")


def test_lore_tokens_split_multiword_keys_and_skip_regexes() -> None:
    assert lore_tokens(["Z-Waif", "VTube Studio", "/rvc\\d+/i", "RVC"]) == {
        "zwaif",
        "vtube",
        "studio",
        "rvc",
    }


def test_settings_from_config_are_exact() -> None:
    s = RetrieverSettings.from_config({"reply_factor": 0.97, "stopword_share": 0.000937, "x": 1})
    assert s.reply_factor == Fraction(97, 100)
    assert s.stopword_share == Fraction(937, 1_000_000)
    assert word_value(1, s) == 1 and word_value(20, s) == Fraction(20, 39)


def _lookup(counts: dict[str, int]):  # type: ignore[no-untyped-def]
    ids = {w: i for i, w in enumerate(counts)}
    return lambda w: (ids[w], counts[w]) if w in counts else None


def test_reply_cap_and_earliest_tie() -> None:
    s = RetrieverSettings()
    counts = {f"u{i}": 2 for i in range(6)} | {f"h{i}": 1 for i in range(6)}
    kws = select_keywords(
        [f"u{i}" for i in range(6)],
        [f"h{i}" for i in range(6)],
        lookup=_lookup(counts),
        total=10**6,
        lore=frozenset(),
        settings=s,
    )
    assert [k.word for k in kws] == ["h0", "h1", "u0", "u1", "u2", "u3"]


def test_keywords_skip_stopwords_unknown_and_have_no_placeholders() -> None:
    s = RetrieverSettings()
    counts = {"zz3": 1, "ok": 2}
    kws = select_keywords(
        ["zz3", "ok", "unknown"],
        [],
        lookup=_lookup(counts),
        total=1200,
        lore=frozenset(),
        settings=s,
    )
    assert [k.word for k in kws] == ["zz3"]


def test_lore_boost_is_exact() -> None:
    # 20/30 boosted = 5/6 exactly = 20/24: the earlier position wins the tie (E1).
    s = RetrieverSettings()
    counts = {"lorex": 11, "plain": 5}
    kws = select_keywords(
        ["lorex", "plain"],
        [],
        lookup=_lookup(counts),
        total=10**6,
        lore=frozenset({"lorex"}),
        settings=s,
    )
    assert [k.word for k in kws] == ["lorex", "plain"]
    assert kws[0].score == kws[1].score == Fraction(5, 6)


def test_smoothing_variant_ranks_by_neighbourhood() -> None:
    case = json.loads((GOLDEN / "bug-b16-no-smoothing.json").read_text())
    q = case["queries"][0]
    for smoothing, want in ((False, 6), (True, 2)):
        store = MemoryStore(settings=RetrieverSettings(smoothing=smoothing))
        ids = {}
        for i, (u, r) in enumerate(case["pairs"]):
            rec = store.ingest(u, r, source_ref=str(i))
            assert rec is not None
            ids[rec.id] = i
        for reference in (False, True):
            got = store.retrieve(q["message"], reference=reference)
            assert got.pick is not None and ids[got.pick.id] == want


def _vocab_text(rng: random.Random, vocab: list[str], n: int) -> str:
    return " ".join(rng.choice(vocab[: rng.randint(5, len(vocab))]) for _ in range(n))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("smoothing", [False, True])
def test_index_matches_full_scan_under_ingest_and_delete(seed: int, smoothing: bool) -> None:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(300)]
    s = RetrieverSettings(exclusion=rng.randint(0, 5), smoothing=smoothing)
    store = MemoryStore(settings=s)
    lore = frozenset(rng.sample(vocab, 5))
    refs: list[str] = []
    for step in range(400):
        if refs and rng.random() < 0.15:
            assert store.delete(refs.pop(rng.randrange(len(refs))))
        else:
            ref = f"s{step}"
            store.ingest(
                _vocab_text(rng, vocab, rng.randint(1, 15)),
                _vocab_text(rng, vocab, rng.randint(0, 40)),
                source_ref=ref,
            )
            refs.append(ref)
        if step % 7 == 0:
            msg, prev = _vocab_text(rng, vocab, 12), _vocab_text(rng, vocab, rng.randint(0, 20))
            fast = store.retrieve(msg, prev, lore=lore, top=5)
            slow = store.retrieve(msg, prev, lore=lore, top=5, reference=True)
            assert fast.ranked == slow.ranked
            assert fast.block == slow.block


def test_retrieval_is_pure() -> None:
    store = MemoryStore(settings=RetrieverSettings(exclusion=0, stopword_share=Fraction("0.1")))
    rng = random.Random(1)
    vocab = [f"w{i}" for i in range(80)]
    for i in range(50):
        store.ingest(_vocab_text(rng, vocab, 8), _vocab_text(rng, vocab, 20), source_ref=str(i))
    first = store.retrieve("w3 w70 w71 w45", "w9")
    assert all(store.retrieve("w3 w70 w71 w45", "w9") == first for _ in range(5))


def test_postings_compaction_keeps_results() -> None:
    store = MemoryStore(settings=RetrieverSettings(exclusion=0, stopword_share=Fraction("0.2")))
    rng = random.Random(5)
    vocab = [f"w{i}" for i in range(120)]
    for i in range(300):
        store.ingest(_vocab_text(rng, vocab, 10), _vocab_text(rng, vocab, 25), source_ref=str(i))
    for i in range(0, 300, 3):
        store.delete(str(i))
    before = store.retrieve("w1 w50 w99 w7", top=5)
    store.index.compact()
    assert all(r in store.index.records for p in store.index.post[0] for r in p)
    assert store.retrieve("w1 w50 w99 w7", top=5) == before
    assert before.ranked == store.retrieve("w1 w50 w99 w7", top=5, reference=True).ranked
