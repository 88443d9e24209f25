"""``bench/recall.py FILE --json``: the output format, on a small labelled set made here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("rank_bm25")


def _dataset(path: Path) -> None:
    topics = ["kayak", "violin", "lasagne", "comet", "orchid", "glacier"]
    exchanges = [
        [f"Hello again, day {i}.", "Hello! How are you?"]
        if i % 2
        else [f"I tried {topics[i // 2]} today.", f"Tell me more about the {topics[i // 2]}."]
        for i in range(12)
    ]
    ids = [[f"2024-03-{1 + i // 2:02d}", i % 2] for i in range(12)]
    probes = [
        {"question": f"What did I say about the {t}?", "evidence": [2 * k], "answerable": True}
        for k, t in enumerate(topics)
    ]
    probes.append({"question": "What did I try on March 2nd?", "evidence": [2], "answerable": True})
    probes.append({"question": "Tell me about the submarine.", "evidence": [], "answerable": False})
    user = {"id": "u", "exchanges": exchanges, "exchange_ids": ids, "probes": probes}
    data = {"format": "memory-retrieval-eval/1", "users": [user]}
    path.write_text(json.dumps(data), encoding="utf-8")


def test_json_has_every_mode_with_recall_and_empty(tmp_path: Path) -> None:
    data = tmp_path / "set.json"
    _dataset(data)
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "recall.py"), str(data), "--json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    got = json.loads(out.stdout)
    assert set(got) == {"modes"}
    modes = got["modes"]
    assert {"zwaif", "zwaif-stopword-off", "bm25", "ranked"} <= set(modes)
    for stats in modes.values():
        assert set(stats) == {"recall@1", "recall@3", "recall@5", "empty", "questions"}
        assert stats["questions"] == 7  # the unanswerable probe is left out
        assert 0 <= stats["recall@1"] <= stats["recall@3"] <= stats["recall@5"] <= 1
    assert modes["ranked"]["recall@1"] == 1.0 and modes["ranked"]["empty"] == 0
    assert modes["zwaif"]["empty"] == 7  # a tiny history: every word passes the 0.000937 share
