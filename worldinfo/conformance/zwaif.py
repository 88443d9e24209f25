"""Runner for ``zwaif-retrieval-cases/1``: the chat-history retriever against Z-Waif's cases.

Each case: build a store with the case's ``config`` and ``lore_keys``, ingest ``pairs`` in
order (no seed pair), then run every query independently and compare the pick (or any pair
of ``accept``), its texts, the keywords (best first), the exact score ``s115`` and the float
``score`` (tolerance 1e-9), and the window when given. Every query is also run through the
full-scan reference path, which must agree with the inverted index.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from worldinfo._js import JSONValue
from worldinfo.conformance.base import Outcome, register
from worldinfo.sources.retriever import Retrieval
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.retriever_tokenize import lore_tokens
from worldinfo.sources.store_memory import MemoryStore


def _ref(i: int) -> str:
    return f"pair:{i}"


def _pair_index(result: Retrieval, pair_of: Mapping[int, int]) -> int | None:
    return None if result.pick is None else pair_of[result.pick.id]


def _check(
    result: Retrieval,
    expect: Mapping[str, JSONValue],
    *,
    pairs: Sequence[Sequence[str]],
    pair_of: Mapping[int, int],
    divisor: int,
) -> str:
    """Return ``""`` if ``result`` meets ``expect``, else the first difference."""
    got = _pair_index(result, pair_of)
    want = expect.get("pair")
    accept = expect.get("accept") or ([want] if want is not None else [])
    if want is None:
        if got is not None:
            return f"pair: expected no memory, got pair {got}"
    elif got not in accept:
        return f"pair: expected {want} (accept {accept}), got {got}"
    elif got is not None and got == want and list(pairs[got]) != [expect["user"], expect["reply"]]:
        return "pair texts differ from expect.user/reply"
    keywords = [kw.word for kw in result.keywords]
    if keywords != expect.get("keywords"):
        return f"keywords: expected {expect.get('keywords')}, got {keywords}"
    s115 = None if result.score is None else result.score.s115
    if expect.get("s115") is not None and s115 != expect["s115"]:
        return f"s115: expected {expect['s115']}, got {s115}"
    score = expect.get("score")
    if score is not None and (s115 is None or abs(s115 / divisor - float(score)) > 1e-9):
        return f"score: expected {score}, got {None if s115 is None else s115 / divisor}"
    window = expect.get("window")
    if window is not None:
        shown = [pair_of[rec.id] for rec in result.window]
        if shown != window:
            return f"window: expected {window}, got {shown}"
    return ""


@register("zwaif-retrieval-cases/1")
def run(case: JSONValue, path: Path) -> Iterator[Outcome]:
    """Yield one outcome per query of a case file."""
    settings = RetrieverSettings.from_config(case.get("config") or {})
    store = MemoryStore(settings=settings)
    pairs: list[list[str]] = case["pairs"]
    pair_of: dict[int, int] = {}
    for i, (user, reply) in enumerate(pairs):
        rec = store.ingest(user, reply, source_ref=_ref(i))
        if rec is not None:
            pair_of[rec.id] = i
    lore = lore_tokens(case.get("lore_keys") or [], punctuation=settings.punctuation)
    for n, query in enumerate(case["queries"], 1):
        case_id = f"zwaif/{path.stem}/q{n}"
        args = (query["message"], query.get("previous_reply") or "")
        result = store.retrieve(*args, lore=lore)
        detail = _check(
            result,
            query["expect"],
            pairs=pairs,
            pair_of=pair_of,
            divisor=settings.length_divisor,
        )
        if not detail:
            ref = store.retrieve(*args, lore=lore, reference=True)
            if ref.score != result.score or ref.keywords != result.keywords:
                detail = f"reference path disagrees: {ref.score} vs {result.score}"
        yield Outcome(case_id=case_id, ok=not detail, detail=detail)
