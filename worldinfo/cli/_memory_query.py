"""``worldinfo memory query``: what the chat-history retriever finds for a text, and why.

Prints the keywords, the ranked candidates and the pick (``--json``: all of it as JSON); a
store that cannot be read is one ``worldinfo memory:`` line and exit 1, like the other store commands.
"""

from __future__ import annotations

import argparse
import json

from worldinfo.cli._inputs import InputError, read_inputs
from worldinfo.cli._memory_store import STORE_ERRORS, fail
from worldinfo.sources.memory_mode import book_keys
from worldinfo.sources.retriever import Retrieval
from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.retriever_tokenize import lore_tokens
from worldinfo.sources.store_sqlite import SqliteStore
from worldinfo.sources.timestamps import TimestampError, parse_timestamp


def _lore(args: argparse.Namespace) -> frozenset[str]:
    keys: list[str] = list(args.lore)
    if args.book:
        keys.extend(book_keys(list(read_inputs(args.book, chat=None).books.values())))
    return lore_tokens(keys, punctuation=args.punctuation)


def _as_json(r: Retrieval, divisor: int) -> dict[str, object]:
    return {
        "keywords": [
            {
                "word": k.word,
                "score": float(k.score),
                "count": k.count,
                "from_reply": k.from_reply,
                "lore": k.lore,
            }
            for k in r.keywords
        ],
        "ranked": [
            {
                "record": s.record_id,
                "score": s.s115 / divisor,
                "s115": s.s115,
                "rank": s.rank,
                "matches": list(s.matches),
                "kept": list(s.kept),
            }
            for s in r.ranked
        ],
        "pick": None if r.pick is None else {"record": r.pick.id, "source_ref": r.pick.source_ref},
        "window": [rec.id for rec in r.window],
        "block": r.block,
        "hits": [
            {
                "source_ref": h.source_ref,
                "timestamp": h.timestamp.isoformat() if h.timestamp else None,
                "score": h.score,
            }
            for h in r.hits
        ],
        "days": [d.isoformat() for d in r.days] if r.days else None,
        "note": r.note,
    }


def run_query(args: argparse.Namespace) -> int:
    """Query a store and show the keywords, the ranked candidates and the pick."""
    settings = RetrieverSettings(
        exclusion=args.exclusion,
        character_name=args.character,
        smoothing=args.smoothing,
        punctuation=args.punctuation,
        ranking=args.ranking,
    )
    try:
        lore = _lore(args)
        now = parse_timestamp(args.now) if args.now else None
        with SqliteStore(args.db, settings=settings, readonly=True) as store:
            r = store.retrieve(args.text, args.previous, lore=lore, top=args.top, now=now)
    except (ValueError, TimestampError, InputError, *STORE_ERRORS) as exc:
        return fail(exc)
    div = settings.length_divisor
    if args.json:
        print(json.dumps(_as_json(r, div), ensure_ascii=False, sort_keys=True))
        return 0
    print("keywords:")
    for k in r.keywords:
        src = "reply" if k.from_reply else "user"
        lore_tag = " lore" if k.lore else ""
        print(f"  {k.word:<24} {float(k.score):.6f}  count {k.count}  ({src}{lore_tag})")
    if not r.keywords:
        print("  (none)")
    if r.days:
        print(f"date: {r.days[0].isoformat()} .. {r.days[1].isoformat()}")
    print("candidates:")
    for s in r.ranked:
        print(
            f"  #{s.record_id:<8} score {s.s115 / div:+.6f} (S115 {s.s115}, matches "
            f"{s.matches[0]}+{s.matches[1]}, kept {s.kept[0]}+{s.kept[1]})"
        )
    if args.ranking == "ranked":
        for h in r.hits:
            when = h.timestamp.isoformat() if h.timestamp else "undated"
            print(f"  {h.source_ref}  {when}  score {h.score:.4f}")
    if r.pick is None:
        print("  (none)\npick: no memory" + (f" ({r.note})" if r.note else ""))
        return 0
    print(f"pick: #{r.pick.id} {r.pick.source_ref}\n\n{r.block}")
    return 0
