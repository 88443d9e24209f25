"""Why each entry did or did not activate: an optional record kept during a scan.

``check(..., trace=True)`` fills a ``Trace``: per scan loop, one ``TraceEvent`` for every
entry the loop looked at, and per entry a final verdict (``EntryVerdict``): activated with
the reason that nominated it, or skipped with exactly one reason (the last loop's). When
tracing is off nothing is recorded and no extra work is done.

Reasons (stable codes):

* activation: ``key`` (with the key and where it was found), ``constant``, ``sticky``,
  ``decorator`` (``@@activate``), ``forced`` (an external activation source);
* skip: ``disabled``, ``trigger``, ``character_filter``, ``tag_filter``, ``delay``,
  ``cooldown``, ``delay_until_recursion``, ``exclude_recursion``, ``dont_activate``,
  ``no_keys``, ``no_primary_match``, ``secondary_logic``, ``group_lost``,
  ``group_already_active``, ``group_timed``, ``group_score``, ``group_quirk_removed``,
  ``probability`` (with the roll), ``budget`` (with the running token count),
  ``budget_skipped`` (after an overflow), ``regex_timeout`` (a key ran out of time).
"""

from __future__ import annotations

from worldinfo._js import JSONValue
from worldinfo._record import field, record

ACTIVATION_REASONS = ("key", "constant", "sticky", "decorator", "forced")


@record
class TraceEvent:
    """One entry's outcome in one loop."""

    loop: int
    state: str
    world: JSONValue
    uid: JSONValue
    outcome: str
    reason: str
    detail: dict[str, JSONValue] = field(default_factory=dict)

    def to_json(self) -> dict[str, JSONValue]:
        """Plain JSON form."""
        return {
            "loop": self.loop,
            "state": self.state,
            "world": self.world,
            "uid": self.uid,
            "outcome": self.outcome,
            "reason": self.reason,
            "detail": self.detail,
        }


@record(frozen=False, kw_only=False)
class Trace:
    """Events by loop and the final verdict per entry key (``world.uid``)."""

    events: list[TraceEvent] = field(default_factory=list)
    verdicts: dict[str, TraceEvent] = field(default_factory=dict)

    def record(self, key: str, event: TraceEvent) -> None:
        """Add an event; an activation is final, a later skip replaces an earlier one."""
        self.events.append(event)
        old = self.verdicts.get(key)
        if old is not None and old.outcome == "activated":
            return
        self.verdicts[key] = event

    def loops(self) -> list[list[TraceEvent]]:
        """Events grouped by loop, in loop order."""
        out: dict[int, list[TraceEvent]] = {}
        for e in self.events:
            out.setdefault(e.loop, []).append(e)
        return [out[k] for k in sorted(out)]

    def activated(self) -> list[tuple[JSONValue, JSONValue]]:
        """``(world, uid)`` of entries whose verdict is activated."""
        return [(e.world, e.uid) for e in self.verdicts.values() if e.outcome == "activated"]

    def to_json(self) -> dict[str, JSONValue]:
        """Plain JSON form: loops of events and the verdicts."""
        return {
            "loops": [[e.to_json() for e in loop] for loop in self.loops()],
            "verdicts": {k: v.to_json() for k, v in self.verdicts.items()},
        }
