"""Recall of the chat-history memory on a labelled set, every mode side by side (run by hand).

Reads a ``memory-retrieval-eval/1`` file (default: ``golden/memorybank/memorybank-en-dev.json``).
Each user's whole history goes into a fresh in-memory store, nothing excluded (the probes
come after the history), each exchange dated with the day of its ``exchange_ids`` entry.
Each answerable probe is a query with no previous reply; recall@k = share of probes with an
evidence exchange among the first k results; ``empty`` = probes answered with nothing.
Unanswerable probes are left out of the figures (the text output reports how many of them
each mode answered with nothing, which is the right answer there).

Modes: ``zwaif`` (defaults), ``zwaif-stopword-off`` (``stopword_share=1``), ``bm25``
(rank-bm25's ``BM25Okapi`` with its defaults k1=1.5, b=0.75, epsilon=0.25 on our tokens,
ties to the most recent), ``ranked`` (defaults) and ranked variants with one feature
changed. No constant is tuned to the data set.

    .venv/bin/python bench/recall.py [FILE] [--json]

``--json`` prints ``{"modes": {NAME: {"recall@1": x, "recall@3": y, "recall@5": z,
"empty": n, "questions": q}}}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: base runs

from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.retriever_tokenize import tokenize
from worldinfo.sources.store_memory import MemoryStore

DEFAULT_FILE = Path(__file__).resolve().parent.parent / "golden/memorybank/memorybank-en-dev.json"
KS = (1, 3, 5)

SETTINGS: dict[str, RetrieverSettings] = {
    "zwaif": RetrieverSettings(exclusion=0),
    "zwaif-stopword-off": RetrieverSettings(exclusion=0, stopword_share=1),
    "ranked": RetrieverSettings(exclusion=0, ranking="ranked"),
    "ranked-no-dates": RetrieverSettings(exclusion=0, ranking="ranked", dates=False),
    "ranked-no-stemming": RetrieverSettings(exclusion=0, ranking="ranked", stemming=False),
    "ranked-no-neighbours": RetrieverSettings(exclusion=0, ranking="ranked", neighbour_weight=0),
}

Search = Callable[[str], list[int]]
"""question -> exchange positions, best first (at most max(KS))."""


def store_search(user: dict[str, Any], settings: RetrieverSettings) -> Search:
    """Our store, one record per exchange, dated by ``exchange_ids``."""
    store = MemoryStore(settings=settings)
    for i, (u, r) in enumerate(user["exchanges"]):
        day = user["exchange_ids"][i][0] if user.get("exchange_ids") else None
        store.ingest(u, r, source_ref=str(i), timestamp=day)

    def search(question: str) -> list[int]:
        got = store.retrieve(question, top=max(KS))
        return [int(h.source_ref) for h in got.hits]

    return search


def bm25_search(user: dict[str, Any]) -> Search:
    """rank-bm25's Okapi BM25 with its default constants, over our tokenizer's tokens."""
    from rank_bm25 import BM25Okapi

    docs = [tokenize(f"{u}\n{r}") for u, r in user["exchanges"]]
    model = BM25Okapi(docs)

    def search(question: str) -> list[int]:
        scores = model.get_scores(tokenize(question))
        order = sorted(range(len(docs)), key=lambda i: (-scores[i], -i))
        return [i for i in order[: max(KS)] if scores[i] > 0]

    return search


def measure(
    users: Sequence[dict[str, Any]], make: Callable[[dict[str, Any]], Search]
) -> dict[str, Any]:
    """Recall@k and empty answers of one mode over every user's answerable probes."""
    hits = dict.fromkeys(KS, 0)
    empty = questions = unanswerable_empty = unanswerable = 0
    for user in users:
        search = make(user)
        for probe in user["probes"]:
            got = search(probe["question"])
            if not probe.get("answerable", True):
                unanswerable += 1
                unanswerable_empty += not got
                continue
            questions += 1
            empty += not got
            evidence = set(probe["evidence"])
            for k in KS:
                hits[k] += any(i in evidence for i in got[:k])
    out: dict[str, Any] = {f"recall@{k}": round(hits[k] / max(questions, 1), 3) for k in KS}
    out.update(empty=empty, questions=questions)
    out["_unanswerable"] = (unanswerable_empty, unanswerable)
    return out


def main(argv: list[str] | None = None) -> int:
    """Measure every mode on FILE and print a table (or ``--json``)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE, metavar="FILE")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    data = json.loads(args.file.read_text(encoding="utf-8"))
    users = data["users"]
    modes: dict[str, dict[str, Any]] = {}
    for name, settings in SETTINGS.items():
        modes[name] = measure(users, lambda u, s=settings: store_search(u, s))
        if name == "zwaif-stopword-off":
            modes["bm25"] = measure(users, bm25_search)
    extra = {name: m.pop("_unanswerable") for name, m in modes.items()}
    if args.json:
        print(json.dumps({"modes": modes}))
        return 0
    print(f"{args.file.name}: {len(users)} users")
    print("| mode | recall@1 | recall@3 | recall@5 | empty | unanswerable answered with nothing |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, m in modes.items():
        ue, un = extra[name]
        print(
            f"| {name} | {m['recall@1']:.3f} | {m['recall@3']:.3f} | {m['recall@5']:.3f} | "
            f"{m['empty']} of {m['questions']} | {ue} of {un} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
