"""Snapshot of retriever rankings on two memorybank users (sorted JSON; review any change)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_snapshot.plugin import Snapshot  # type: ignore[import-untyped]

from worldinfo.sources.retriever_settings import RetrieverSettings
from worldinfo.sources.store_memory import MemoryStore

ROOT = Path(__file__).resolve().parent
BANK = ROOT.parent / "golden" / "memorybank" / "memorybank-en-dev.json"


def test_memorybank_rankings(snapshot: Snapshot) -> None:
    data = json.loads(BANK.read_text(encoding="utf-8"))
    out: dict[str, list[dict[str, object]]] = {}
    for user in data["users"][:2]:
        store = MemoryStore(settings=RetrieverSettings(exclusion=0))
        index: dict[int, int] = {}
        for i, (u, r) in enumerate(user["exchanges"]):
            rec = store.ingest(u, r, source_ref=str(i))
            assert rec is not None
            index[rec.id] = i
        rows = []
        for probe in user["probes"]:
            got = store.retrieve(probe["question"], top=3)
            rows.append(
                {
                    "question": probe["question"],
                    "keywords": [k.word for k in got.keywords],
                    "ranked": [[index[s.record_id], s.s115] for s in got.ranked],
                }
            )
        out[user["id"]] = rows
    snapshot.snapshot_dir = ROOT / "snapshots" / "retriever"
    snapshot.assert_match(json.dumps(out, indent=1, sort_keys=True) + "\n", "memorybank.json")
