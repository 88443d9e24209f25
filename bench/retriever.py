"""Benchmark of the chat-history retriever on a seeded synthetic chat corpus (run by hand).

Corpus (after spec retriever.md 13.2, with a generated vocabulary instead of wordfreq's):
50,000 pseudo-words with Zipf-Mandelbrot frequencies and a head of real English function
words; 800 topics of 20 mid-frequency words (ranks 300-20,000); sessions of 10-60 exchanges
use 1-2 topics and draw 15 % of their tokens from them; 0.4 % of tokens are lore keys.
User turns ~12 words, replies ~38 words (log-normal medians; ~58 tokens per exchange), sentences of ~9 words with capitals,
commas and . ! ? ..., replies with *actions* (25 %), emoticon tails (10 %) and line breaks
(15 %).

For each size (1k, 10k, 100k exchanges) a fresh store ingests the corpus prefix, then runs
the queries; every query is also run through the full-scan reference path and must give the
same ranking (``--ranking ranked``: the ranked mode, whose reference recomputes the
per-record data instead of using its cached view). Ingest is measured two ways, each into
its own fresh store: ``batch`` = ``ingest_many`` of ``--batch`` exchanges per call (one SQLite
transaction per call, as ``ChatSync`` and ``memory ingest`` do), and ``one`` = ``ingest`` per
exchange (one transaction each, as a live session adds a turn). Wall and CPU seconds
(``time.process_time``) are reported; on a shared machine CPU time is the steadier figure.
The ingest figures are the store's work only: the corpus (and its session topics, for the
queries) is generated in one pass before the clock starts and held as plain tuples, which the
garbage collector stops walking, so neither the generator (``random.choices``, ``_words``,
``_text``) nor the bench's own objects are in them; the generation time is reported beside
them (``corpus_s``). The reference checks run after each timed query, outside its clock.
``--json`` prints one object: {"ingest_s": {...} (batch), "ingest_cpu_s", "ingest_one_s",
"ingest_one_cpu_s", "query_median_ms": {...}, "corpus_s": {...}, "peak_rss_mb": n,
"matches_reference": bool, "machine": {...}}. A checkout without ``ingest_many`` measures
``one`` only.

    .venv/bin/python bench/retriever.py [--sizes 1000 10000 100000] [--json] [--store memory]
        [--ranking ranked] [--ingest batch|one|both] [--batch 500]
    .venv/bin/python bench/retriever.py --instructions 20000 [--base /work/wt/base]  # valgrind

``--instructions N`` counts, under callgrind, the instructions of the batch ingest of N
exchanges into a fresh SQLite store (the ingest only, between two marker calls) in one child
process per checkout, the library taken from that checkout (``PYTHONPATH``) and the corpus
from this script; unlike CPU time, the count does not move with the machine's load.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import platform
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

sys.path.append(str(Path(__file__).resolve().parent.parent))  # PYTHONPATH=<checkout> wins

from worldinfo.sources.retriever_settings import RANKINGS, Ranking, RetrieverSettings
from worldinfo.sources.retriever_tokenize import lore_tokens
from worldinfo.sources.store_memory import MemoryStore
from worldinfo.sources.store_sqlite import SqliteStore

SEED = 20240707
ZIPF = 1.1
LORE_KEYS = ["Whisper", "RVC", "Oobabooga", "Z-Waif", "VTube Studio"]
FUNCTION_WORDS = [
    "the",
    "and",
    "to",
    "a",
    "i",
    "you",
    "it",
    "of",
    "is",
    "that",
    "in",
    "me",
    "my",
    "for",
    "this",
    "so",
    "what",
    "do",
    "be",
    "with",
    "have",
    "just",
    "was",
    "not",
    "but",
    "on",
    "are",
    "like",
    "your",
    "we",
    "can",
    "know",
    "be",
    "all",
    "about",
    "it's",
    "no",
    "yes",
    "oh",
    "really",
    "think",
    "that's",
    "at",
    "if",
    "one",
    "there",
    "get",
    "how",
    "go",
    "out",
    "now",
    "too",
    "he",
    "she",
    "they",
    "them",
    "her",
    "him",
    "up",
    "then",
    "would",
    "will",
    "well",
    "as",
    "or",
    "an",
    "by",
    "from",
    "here",
    "why",
    "when",
    "want",
    "more",
    "very",
    "good",
    "right",
    "see",
    "some",
    "want",
    "time",
    "much",
]
ONSETS = [
    "b",
    "bl",
    "br",
    "c",
    "ch",
    "cl",
    "cr",
    "d",
    "dr",
    "f",
    "fl",
    "fr",
    "g",
    "gl",
    "gr",
    "h",
    "j",
    "k",
    "kr",
    "l",
    "m",
    "n",
    "p",
    "pl",
    "pr",
    "qu",
    "r",
    "s",
    "sh",
    "sk",
    "sl",
    "st",
    "t",
    "th",
    "tr",
    "v",
    "w",
    "y",
    "z",
]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "io", "oo", "ou", "y"]
CODAS = ["", "", "n", "r", "s", "st", "th", "nd", "rk", "x", "m", "l"]


class Corpus:
    """The seeded synthetic corpus generator."""

    def __init__(self, seed: int = SEED, vocab_size: int = 50_000) -> None:
        rng = random.Random(seed)
        words = list(dict.fromkeys(FUNCTION_WORDS))
        seen = set(words)
        while len(words) < vocab_size:
            w = "".join(
                rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)
                for _ in range(rng.choice((1, 2, 2, 3)))
            )
            if w not in seen:
                seen.add(w)
                words.append(w)
        self.words = words
        self.cum = list(itertools.accumulate((r + 2.7) ** -ZIPF for r in range(vocab_size)))
        self.topics = [rng.sample(words[300:20_000], 20) for _ in range(800)]
        self.seed = seed

    def _words(self, rng: random.Random, n: int, topic: list[str], share: float) -> list[str]:
        out = rng.choices(self.words, cum_weights=self.cum, k=n)
        for i in range(n):
            r = rng.random()
            if r < share:
                out[i] = rng.choice(topic)
            elif r < share + 0.004:
                out[i] = rng.choice(LORE_KEYS)
        return out

    def _text(self, rng: random.Random, words: list[str], *, reply: bool) -> str:
        sentences = []
        i = 0
        while i < len(words):
            k = max(1, round(rng.gauss(9, 3)))
            chunk = words[i : i + k]
            i += k
            body = " ".join(w + ("," if rng.random() < 0.08 else "") for w in chunk).rstrip(",")
            sentences.append(body[:1].upper() + body[1:] + rng.choice([".", ".", "!", "?", "..."]))
        sep = "\n" if reply and rng.random() < 0.15 else " "
        text = sep.join(sentences)
        if reply and rng.random() < 0.25:
            text = f"*{rng.choice(['smiles', 'giggles', 'nods', 'waves', 'grins'])}* " + text
        if reply and rng.random() < 0.10:
            text += " " + rng.choice([":)", "^^", "xD", ":3"])
        return text

    def exchange(
        self, rng: random.Random, topic: list[str], share: float = 0.15
    ) -> tuple[str, str]:
        """One (user, reply) exchange about ``topic``."""
        nu = max(1, round(rng.lognormvariate(math.log(12), 0.5)))
        nr = max(1, round(rng.lognormvariate(math.log(38), 0.5)))
        user = self._text(rng, self._words(rng, nu, topic, share), reply=False)
        return user, self._text(rng, self._words(rng, nr, topic, share), reply=True)

    def exchanges(self) -> Iterator[tuple[list[str], str, str]]:
        """Endless stream of (session topic words, user, reply), deterministic."""
        rng = random.Random(self.seed)
        while True:
            topic = [w for t in rng.sample(self.topics, rng.choice((1, 2))) for w in t]
            for _ in range(rng.randint(10, 60)):
                user, reply = self.exchange(rng, topic)
                yield topic, user, reply


def _machine() -> dict[str, object]:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _Exchange(NamedTuple):
    """One generated exchange (a tuple of strings: untracked by the garbage collector)."""

    source_ref: str
    user: str
    reply: str
    timestamp: object = None


def _ingest(
    store: MemoryStore | SqliteStore, data: list[_Exchange], *, batch: int
) -> tuple[float, float]:
    """Ingest ``data`` (``batch`` = 1: one ``ingest`` each); return (wall, CPU) seconds."""
    t0, c0 = time.perf_counter(), time.process_time()
    if batch > 1:
        for k in range(0, len(data), batch):
            store.ingest_many(data[k : k + batch])
    else:
        for ex in data:
            store.ingest(ex.user, ex.reply, source_ref=ex.source_ref)
    store.index.sync()
    return time.perf_counter() - t0, time.process_time() - c0


def _open(kind: str, db: Path, ranking: Ranking) -> MemoryStore | SqliteStore:
    settings = RetrieverSettings(ranking=ranking)
    return (
        SqliteStore(db, settings=settings) if kind == "sqlite" else MemoryStore(settings=settings)
    )


def run_size(
    corpus: Corpus,
    n: int,
    *,
    store_kind: str,
    queries: int,
    tmp: Path,
    ranking: Ranking = "zwaif",
    modes: tuple[str, ...] = ("batch", "one"),
    batch: int = 500,
) -> dict[str, object]:
    """Ingest ``n`` exchanges into a fresh store per mode, then time the queries on the last."""
    t0, c0 = time.perf_counter(), time.process_time()
    data: list[_Exchange] = []  # generated before any clock starts, in one pass
    by_id: dict[int, list[str]] = {}
    for i, (topic, user, reply) in enumerate(itertools.islice(corpus.exchanges(), n)):
        data.append(_Exchange(source_ref=f"bench#{i}", user=user, reply=reply))
        by_id.setdefault(id(topic), topic)
    topics = list(by_id.values())
    corpus_s = (round(time.perf_counter() - t0, 3), round(time.process_time() - c0, 3))
    if not hasattr(SqliteStore, "ingest_many"):
        modes = ("one",)
    times: dict[str, tuple[float, float]] = {}
    for mode in modes:
        store = _open(store_kind, tmp / f"bench-{n}-{mode}.db", ranking)
        times[mode] = _ingest(store, data, batch=batch if mode == "batch" else 1)
        if mode != modes[-1]:
            store.close()
    rng = random.Random(corpus.seed + 1)
    lore = lore_tokens(LORE_KEYS)
    took: list[float] = []
    matches = True
    hits = 0
    for _ in range(queries):
        message, reply = corpus.exchange(rng, rng.choice(topics), share=0.3)
        previous = reply if rng.random() < 0.5 else ""
        t = time.perf_counter()
        got = store.retrieve(message, previous, lore=lore, top=3)
        took.append(time.perf_counter() - t)
        ref = store.retrieve(message, previous, lore=lore, top=3, reference=True)
        matches &= got.ranked == ref.ranked and got.keywords == ref.keywords
        matches &= got.hits == ref.hits
        hits += got.pick is not None
    vocab = len(store.index.words)
    store.close()
    out: dict[str, object] = {}
    for mode, (wall, cpu) in times.items():
        key = "ingest" if mode == "batch" else "ingest_one"
        out[f"{key}_s"], out[f"{key}_cpu_s"] = round(wall, 3), round(cpu, 3)
    return {
        **out,
        "corpus_s": corpus_s[0],
        "corpus_cpu_s": corpus_s[1],
        "query_median_ms": round(statistics.median(took) * 1000, 3),
        "query_p90_ms": round(sorted(took)[int(0.9 * len(took))] * 1000, 3),
        "matches_reference": matches,
        "picks": hits,
        "vocabulary": vocab,
        "rss_mb": round(_rss_mb(), 1),
    }


def memorybank(path: Path, *, top: int = 5) -> dict[str, object]:
    """Measure retrieval quality on a ``memory-retrieval-eval/1`` file (no tuning to it).

    Every user's history goes into a fresh store (exclusion 0: the probes come after the
    history); each answerable probe is a query with no previous reply. Hit@1: the pick is an
    evidence exchange; window hit: the pick is within 1 of one (the block shows neighbours);
    recall@k: an evidence exchange is among the ``top`` ranked candidates.
    """
    data = json.loads(path.read_text(encoding="utf-8"))
    probes = hit1 = window = recall = none = 0
    for user in data["users"]:
        store = MemoryStore(settings=RetrieverSettings(exclusion=0))
        order: dict[int, int] = {}
        for i, (u, r) in enumerate(user["exchanges"]):
            rec = store.ingest(u, r, source_ref=f"{user['id']}#{i}")
            if rec is not None:
                order[rec.id] = i
        for probe in user["probes"]:
            if not probe.get("answerable", True):
                continue
            evidence = set(probe["evidence"])
            got = store.retrieve(probe["question"], top=top)
            probes += 1
            if got.pick is None:
                none += 1
                continue
            pick = order[got.pick.id]
            hit1 += pick in evidence
            window += any(abs(pick - e) <= 1 for e in evidence)
            recall += any(order[s.record_id] in evidence for s in got.ranked)
    return {
        "probes": probes,
        "hit_at_1": round(hit1 / probes, 3),
        "window_hit": round(window / probes, 3),
        f"recall_at_{top}": round(recall / probes, 3),
        "no_memory": none,
    }


def _marked_ingest(n: int, *, batch: int) -> None:
    """Ingest ``n`` exchanges into a fresh SQLite store between two ``os.getppid`` calls
    (``--dump-before=getppid`` markers: the corpus and the store's opening are not counted)."""
    data = [
        _Exchange(source_ref=f"bench#{i}", user=user, reply=reply)
        for i, (_, user, reply) in enumerate(itertools.islice(Corpus().exchanges(), n))
    ]
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteStore(Path(tmp) / "bench.db")
        os.getppid()
        _ingest(store, data, batch=batch)
        os.getppid()
        store.close()


def instructions(n: int, *, roots: dict[str, Path], batch: int) -> dict[str, int]:
    """Instructions of the batch ingest of ``n`` exchanges per checkout, under callgrind (the
    count does not move with the machine's load, unlike CPU time)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind on PATH")
    out: dict[str, int] = {}
    for name, root in roots.items():
        env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
        with tempfile.TemporaryDirectory() as tmp:
            argv = [valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out"]
            argv += ["--dump-before=getppid", sys.executable, __file__, "--marked", str(n)]
            argv += ["--batch", str(batch)]
            subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
            dump = (Path(tmp) / "cg.out.2").read_text().splitlines()
            out[name] = int(next(ln for ln in dump if ln.startswith("totals:")).split()[1])
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print a table (stderr) and optionally one JSON line (stdout)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--store", choices=("sqlite", "memory"), default="sqlite")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--ranking", choices=RANKINGS, default="zwaif", help="retrieval mode")
    ap.add_argument("--memorybank", type=Path, metavar="FILE", help="only measure quality")
    ap.add_argument("--ingest", choices=("batch", "one", "both"), default="both")
    ap.add_argument("--batch", type=int, default=500, help="exchanges per ingest_many call")
    ap.add_argument("--instructions", type=int, metavar="N", help="count a batch ingest of N")
    ap.add_argument("--base", type=Path, help="with --instructions: also this checkout")
    ap.add_argument("--marked", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.marked:
        _marked_ingest(args.marked, batch=args.batch)
        return 0
    if args.instructions:
        roots = {"base": args.base} if args.base else {}
        roots["this"] = Path(__file__).resolve().parent.parent
        got = instructions(args.instructions, roots=roots, batch=args.batch)
        for name, count in got.items():
            print(
                f"{name}: batch ingest of {args.instructions} exchanges, {count / 1e6:.0f} M instr"
            )
        if args.base:
            print(f"ratio this/base: {got['this'] / got['base']:.3f}")
        if args.json:
            print(json.dumps({"ingest_instructions": got}))
        return 0
    if args.memorybank:
        print(json.dumps(memorybank(args.memorybank)))
        return 0
    corpus = Corpus()
    out: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            out[str(n)] = r = run_size(
                corpus,
                n,
                store_kind=args.store,
                queries=args.queries,
                tmp=Path(tmp),
                ranking=args.ranking,
                modes=("batch", "one") if args.ingest == "both" else (args.ingest,),
                batch=args.batch,
            )
            ingest = ", ".join(
                f"{label} {r[k + '_s']} s (CPU {r[k + '_cpu_s']})"
                for label, k in (("batch", "ingest"), ("one by one", "ingest_one"))
                if k + "_s" in r
            )
            print(
                f"{n:>7} exchanges: ingest {ingest}, query median "
                f"{r['query_median_ms']} ms (p90 {r['query_p90_ms']}), picks {r['picks']}/"
                f"{args.queries}, vocabulary {r['vocabulary']}, corpus generated in "
                f"{r['corpus_s']} s (not timed), reference "
                f"{'ok' if r['matches_reference'] else 'MISMATCH'}, rss {r['rss_mb']} MB",
                file=sys.stderr,
            )
    summary: dict[str, object] = {
        key: {k: v[key] for k, v in out.items()}
        for key in ("ingest_s", "ingest_cpu_s", "ingest_one_s", "ingest_one_cpu_s")
        if all(key in v for v in out.values())
    }
    summary |= {
        "query_median_ms": {k: v["query_median_ms"] for k, v in out.items()},
        "corpus_s": {k: v["corpus_s"] for k, v in out.items()},
        "peak_rss_mb": round(_rss_mb(), 1),
        "matches_reference": all(bool(v["matches_reference"]) for v in out.values()),
        "machine": _machine(),
    }
    if args.json:
        print(json.dumps(summary))
    print(f"machine: {json.dumps(summary['machine'])}", file=sys.stderr)
    return 0 if summary["matches_reference"] else 1


if __name__ == "__main__":
    sys.exit(main())
