"""Per-entry and per-replay figures from turn records: does each entry pull its weight?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from worldinfo._record import field, record
from worldinfo.replay.runner import EntryInfo
from worldinfo.replay.turns import CUT_KINDS, HOWS, TurnRecord, turn_json


@record
class EntryStats:
    """What one entry did across the replay.

    Args:
        info: the entry.
        fired: turns it fired in.
        how: firings by ``HOWS`` code.
        sources: for recursion, how often each earlier entry's content woke it.
        tokens: tokens of its content, summed over its firings.
        cuts: turns it was cut, by ``CUT_KINDS`` kind.
    """

    info: EntryInfo
    fired: int = 0
    how: Mapping[str, int] = field(default_factory=dict)
    sources: Mapping[str, int] = field(default_factory=dict)
    tokens: int = 0
    cuts: Mapping[str, int] = field(default_factory=dict)

    @property
    def per_firing(self) -> float:
        """Mean tokens per firing (0 when it never fired)."""
        return self.tokens / self.fired if self.fired else 0.0

    @property
    def only_recursion(self) -> bool:
        """It fired, and every time through recursion."""
        return self.fired > 0 and self.how.get("recursion", 0) == self.fired


@record
class ReplayStats:
    """The whole replay: turns, and per-entry figures in catalog order.

    Args:
        turns: every turn record, in replay order.
        entries: per-entry figures (the books' entries, then any other that fired).
        chats: the chat labels, in replay order.
    """

    turns: tuple[TurnRecord, ...]
    entries: tuple[EntryStats, ...]
    chats: tuple[str, ...] = ()

    @property
    def never_fired(self) -> list[EntryStats]:
        """Enabled entries that fired in no turn."""
        return [s for s in self.entries if s.info.enabled and s.fired == 0]

    @property
    def always_fired(self) -> list[EntryStats]:
        """Entries that fired in every turn (none when there were no turns)."""
        n = len(self.turns)
        return [s for s in self.entries if n and s.fired == n]

    @property
    def overflows(self) -> int:
        """Turns in which the budget cut an entry."""
        return sum(1 for t in self.turns if t.overflowed)


def collect(turns: Sequence[TurnRecord], entries: Sequence[EntryInfo]) -> ReplayStats:
    """Sum turn records into per-entry figures.

    Args:
        turns: the turn records.
        entries: the books' entries (``catalog``); entries that fire but are not listed (an
            activation source's own) are added at the end.

    Returns:
        The figures.
    """
    by_key = {e.key: _Sums(info=e) for e in entries}
    chats: dict[str, None] = {}
    for t in turns:
        chats.setdefault(t.chat, None)
        for f in t.fired:
            s = by_key.get(f.key) or by_key.setdefault(f.key, _Sums(info=_unlisted(f.key)))
            s.fired += 1
            s.how[f.how] = s.how.get(f.how, 0) + 1
            s.tokens += f.tokens
            for src in f.sources:
                s.sources[src] = s.sources.get(src, 0) + 1
        for key, kind in t.cut.items():
            s = by_key.get(key) or by_key.setdefault(key, _Sums(info=_unlisted(key)))
            s.cuts[kind] = s.cuts.get(kind, 0) + 1
    figures = tuple(
        EntryStats(
            info=s.info, fired=s.fired, how=s.how, sources=s.sources, tokens=s.tokens, cuts=s.cuts
        )
        for s in by_key.values()
    )
    return ReplayStats(turns=tuple(turns), entries=figures, chats=tuple(chats))


@record(frozen=False)
class _Sums:
    """The running sums ``collect`` keeps per entry."""

    info: EntryInfo
    fired: int = 0
    how: dict[str, int] = field(default_factory=dict)
    sources: dict[str, int] = field(default_factory=dict)
    tokens: int = 0
    cuts: dict[str, int] = field(default_factory=dict)


def _unlisted(key: str) -> EntryInfo:
    world, _, uid = key.rpartition(".")
    return EntryInfo(key=key, world=world, uid=uid, title="", enabled=True, constant=False)


def entry_json(s: EntryStats, turns: int) -> dict[str, object]:
    """Plain JSON form of one entry's figures."""
    return {
        "entry": s.info.key,
        "world": s.info.world,
        "uid": s.info.uid,
        "title": s.info.title,
        "enabled": s.info.enabled,
        "fired": s.fired,
        "share": round(s.fired / turns, 4) if turns else 0.0,
        "how": {h: s.how[h] for h in HOWS if h in s.how},
        "recursion_from": dict(sorted(s.sources.items(), key=lambda kv: (-kv[1], kv[0]))),
        "tokens": s.tokens,
        "tokens_per_firing": round(s.per_firing, 2),
        "cut": {c: s.cuts[c] for c in CUT_KINDS if c in s.cuts},
    }


def stats_json(stats: ReplayStats) -> dict[str, object]:
    """The replay as JSON: summary, per-entry figures, per-turn records."""
    n = len(stats.turns)
    return {
        "summary": {
            "chats": list(stats.chats),
            "turns": n,
            "entries": len(stats.entries),
            "never_fired": [s.info.key for s in stats.never_fired],
            "always_fired": [s.info.key for s in stats.always_fired],
            "overflows": stats.overflows,
            "tokens": sum(t.tokens for t in stats.turns),
        },
        "entries": [entry_json(s, n) for s in stats.entries],
        "turns": [turn_json(t) for t in stats.turns],
    }
