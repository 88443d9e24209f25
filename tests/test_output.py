"""``output.assemble`` of the usual book (``_assemble_usual``: finite orders, string
contents, the four front positions, no hook) equals the assembly from the entries' fields,
with the orders sorted or not, tied or not, and with one bucket or several."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo.engine.fast.entry_facts import Facts, facts_of
from worldinfo.engine.fast.recent import Recent
from worldinfo.engine.output import Assembled, _assemble_usual, assemble

USUAL = st.fixed_dictionaries(
    {
        "position": st.sampled_from([0, 0, 0, 1, 2, 3]),
        "order": st.sampled_from([100, 100, 50, 10, 7, -3, 100.5, 0]),
        "content": st.sampled_from(["a", "b", "", "c\nd", "e", "f"]),
    }
)


def _pieces(out: Assembled) -> tuple[Any, ...]:
    return (out.before, out.after, out.an_top, out.an_bottom, out.examples, out.depth_groups())


@settings(max_examples=400, deadline=None)
@given(st.lists(USUAL, max_size=14), st.booleans(), st.booleans())
def test_usual_assembly_equals_assembly_from_fields(
    rows: list[dict[str, Any]], descending: bool, one_bucket: bool
) -> None:
    entries = [dict(r) for r in rows]
    if descending:  # the common case: already in assembly order, ties kept as they are
        entries.sort(key=lambda e: -e["order"])
    if one_bucket:
        for e in entries:
            e["position"] = 0
    facts = [facts_of(e) for e in entries]
    usual = _assemble_usual([e["content"] for e in entries], facts)
    assert usual is not None  # the usual book takes the usual path
    assert _pieces(usual) == _pieces(assemble(entries))
    assert _pieces(assemble(entries, facts=facts)) == _pieces(assemble(entries))


def test_other_books_are_not_usual() -> None:
    plain = {"position": 0, "order": 1, "content": "a"}
    for odd in ({"position": 4}, {"position": 7, "outletName": "o"}, {"order": "x"}):
        entries = [plain, {**plain, **odd}]
        facts = [facts_of(e) for e in entries]
        assert _assemble_usual([str(e["content"]) for e in entries], facts) is None
        assert _pieces(assemble(entries, facts=facts)) == _pieces(assemble(entries))
    assert _assemble_usual(["a", "b"], [facts_of(plain), None]) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(USUAL, max_size=8), st.sampled_from([None, 5, True, "z"]))
def test_kept_pieces_equal_the_pieces_assembled(rows: list[dict[str, Any]], odd: Any) -> None:
    """Through ``recent``, scan after scan (one entry's content odd or missing, or a fact
    missing): the pieces of the straightforward assembly."""
    recent: Recent[object] = Recent()
    entries = [dict(r) for r in rows]
    if entries and odd is not None:
        entries[0]["content"] = odd
    elif entries:
        del entries[0]["content"]
    facts: list[Facts | None] = [facts_of(e) for e in entries]
    if len(facts) > 1 and odd == "z":
        facts[1] = None
    positions = list(range(len(entries)))
    for _ in range(2):
        got = assemble(entries, facts=facts, recent=recent, positions=positions)
        assert _pieces(got) == _pieces(assemble(entries))
