"""Replay real chats against books: what each entry did on every turn, and why.

``replay_chat`` plays a chat through a ``Session`` turn by turn with the trace on and reads
each scan into a ``TurnRecord``; ``collect`` sums the records per entry (``ReplayStats``);
``render_html`` draws the figures as one self-contained HTML page.
"""

from __future__ import annotations

from worldinfo.replay.runner import EntryInfo, catalog, replay_chat, turn_points
from worldinfo.replay.stats import EntryStats, ReplayStats, collect, stats_json
from worldinfo.replay.turns import CUT_KINDS, HOWS, Firing, TurnRecord, read_turn

__all__ = [
    "CUT_KINDS",
    "HOWS",
    "EntryInfo",
    "EntryStats",
    "Firing",
    "ReplayStats",
    "TurnRecord",
    "catalog",
    "collect",
    "read_turn",
    "replay_chat",
    "stats_json",
    "turn_points",
]
