"""Building a plan from stored fields (entry classes, bulk key slots, lazy entry objects)
gives the same plan as preparing every entry object on its own."""

from __future__ import annotations

import functools
import math
import random
from typing import Any

import pytest

from worldinfo import _js
from worldinfo.conformance import generate as gen
from worldinfo.engine import entry_rules, gathering
from worldinfo.engine.fast.build import build_plan
from worldinfo.engine.fast.classes import SIG_FIELDS
from worldinfo.engine.fast.origins import BookMemo, Origins
from worldinfo.engine.fast.plan import EMPTY, REGEX, UNKNOWN, Kind, Plan
from worldinfo.engine.fast.slots import Gate
from worldinfo.session import Session
from worldinfo.types import Book, Entry, Message, Settings

# Values a field may hold in a shared book: JSON's loose types, which JavaScript reads
# through truthiness, ``== true``, ``??`` and ``Number()``.
LOOSE: list[Any] = [True, False, 0, 1, 1.0, 0.0, 2, "", "1", "x", None, [], [1], {}, {"a": 1}]
FIELDS = [
    "disable",
    "constant",
    "scanDepth",
    "caseSensitive",
    "matchWholeWords",
    "matchScenario",
    "ignoreBudget",
    "delay",
    "group",
    "delayUntilRecursion",
    "excludeRecursion",
    "selective",
    "selectiveLogic",
    "triggers",
    "characterFilter",
]
ODD_KEYS: list[Any] = ["", "  ", "{{char}}", "a<b>", "/w1/i", "/(/", "x\ny", 5, None, ["w"]]
ODD_CONTENT: list[Any] = ["@@activate\nbody", "@@dont_activate", "", None, "plain"]


def _origins(entries: list[Entry], world: str) -> Origins:
    """The origins of ``entries`` as a book named ``world`` (no hash known yet)."""
    return Origins.of([BookMemo.after(Book(name=world, entries=tuple(entries)), None)])


def _entries(seed: int) -> list[Entry]:
    rng = random.Random(seed)
    words = gen.vocabulary(60)
    out = []
    for uid in range(120):
        data = gen.entry(uid, rng, words)
        for _ in range(rng.choice((0, 0, 1, 3))):
            data[rng.choice(FIELDS)] = rng.choice(LOOSE)
        if rng.random() < 0.1:
            data["key"] = [*data["key"], rng.choice(ODD_KEYS)]
        if rng.random() < 0.05:
            data["keysecondary"] = [rng.choice(ODD_KEYS), rng.choice(words)]
        if rng.random() < 0.05:
            data["content"] = rng.choice(ODD_CONTENT)
        if rng.random() < 0.05:
            del data[rng.choice([f for f in FIELDS if f in data] or ["comment"])]
        if rng.random() < 0.03:
            data["world"] = "elsewhere"
        if rng.random() < 0.03:
            data["hash"] = 12345
        out.append(Entry(data=data))
    return out


def _facts(plan: Plan) -> dict[str, Any]:
    """The plan's facts with needle ids replaced by what they stand for."""
    needles = plan.needles.needles()

    def slot(s: int) -> object:
        if s in (EMPTY, UNKNOWN):
            return s
        if s <= REGEX:
            return ("regex", plan.regex_keys[REGEX - s].source)
        return needles[s]

    tables = [
        {needles[nid]: sorted(set(ps)) for nid, ps in table.items()} for table in plan.by_needle
    ]
    return {
        "keys": plan.keys,
        "kind": plan.kind,
        "plain": plan.plain,
        "config": [plan.configs[c] for c in plan.config],
        "primary": [[slot(s) for s in p] for p in plan.primary],
        "secondary": [
            None if s is None else (s.logic, [slot(x) for x in s.slots]) for s in plan.secondary
        ],
        "by_needle": {(plan.configs[c], k): v for c, t in enumerate(tables) for k, v in t.items()},
        "always": plan.always_visit,
        "delay": plan.delay_positions,
        "levels": _js.canonical(plan.levels),
        "regex": sorted(plan.regex_positions),
        "any": (plan.any_group, plan.any_ignore_budget),
        "hashed": bytes(plan.hashed),
    }


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(
    "settings", [Settings(), Settings(case_sensitive=True, match_whole_words=True)]
)
def test_classes_give_the_plan_of_entries_prepared_one_by_one(
    seed: int, settings: Settings
) -> None:
    entries = _entries(seed)
    origins = _origins(entries, "Book")
    fast = build_plan(origins, settings, gate=Gate())
    # Entries listed as untrusted are prepared one by one from their built objects (these
    # are not untrusted themselves, so the objects are the same).
    one_by_one = build_plan(
        _origins(entries, "Book"),
        settings,
        gate=Gate(),
        untrusted=frozenset(id(e) for e in entries),
    )
    assert _facts(fast) == _facts(one_by_one)
    assert list(fast.entries) == list(one_by_one.entries)


def test_entry_objects_are_built_when_a_scan_reads_them() -> None:
    entries = [Entry.new(i, key=[f"word{i}"], content=f"C{i}") for i in range(50)]
    session = Session(books={"B": Book(name="B", entries=tuple(entries))}, global_books=["B"])
    session.chat.append(Message(name="User", mes="word3 and word7", is_user=True))
    result = session.generate("normal")
    assert sorted(int(str(e["uid"])) for e in result.activated) == [3, 7]
    assert session.scan_cache is not None
    plan = session.scan_cache.plan(session.books, session.selection, session.settings)
    assert plan is not None
    built = [p for p, obj in enumerate(plan.entries.made) if obj is not None]
    assert built == [3, 7]
    assert plan.entries[10] == {"uid": 10, "world": "B", **entries[10].data, "decorators": []}


ORDERS: list[Any] = [
    0,
    1,
    -1,
    5,
    2**53 - 1,
    2**53,
    -(2**53),
    3.0,
    2.5,
    True,
    None,
    "7",
    "x",
    [],
    -0.0,
]


@pytest.mark.parametrize("seed", range(40))
def test_the_order_sort_is_the_comparator_sort(seed: int) -> None:
    """``sort_desc_by_order`` (an integer-only book sorted by one C sort) gives V8's
    ``(a, b) => b.order - a.order`` order, computed here comparison by comparison."""
    rng = random.Random(seed)
    pool = ORDERS if seed % 2 else [rng.randrange(-5, 5) for _ in range(6)]
    items = [{"id": i} for i in range(rng.randrange(0, 30))]
    for item in items:
        if seed % 3 or rng.random() < 0.9:
            item["order"] = rng.choice(pool)

    def cmp(a: dict[str, Any], b: dict[str, Any]) -> int:
        d = _js.to_number(b.get("order", _js.UNDEFINED)) - _js.to_number(
            a.get("order", _js.UNDEFINED)
        )
        return 0 if math.isnan(d) or d == 0 else (-1 if d < 0 else 1)

    expected = sorted(items, key=functools.cmp_to_key(cmp))
    assert [x["id"] for x in _js.sort_desc_by_order(items)] == [x["id"] for x in expected]


@pytest.mark.parametrize("seed", range(6))
def test_each_needle_lists_its_positions_once_in_order(seed: int) -> None:
    """The needle table of a one-configuration book without regex keys (filled in one
    pass) lists each PLAIN or GATED position under each of its primary needles, once,
    ascending."""
    entries = []
    for e in _entries(seed):
        data = {k: v for k, v in e.data.items() if k not in ("scanDepth", "matchScenario")}
        keys = data.get("key")
        if isinstance(keys, list):  # a repeated key, no regex key
            kept = [k for k in keys if "/" not in str(k)]
            data["key"] = kept + kept[:1]
        data["keysecondary"] = []
        entries.append(Entry(data=data))
    plan = build_plan(_origins(entries, "Book"), Settings(), gate=Gate())
    assert len(plan.by_needle) == 1 and not plan.regex_needles
    expected: dict[int, list[int]] = {}
    for pos, (kind, primary) in enumerate(zip(plan.kind, plan.primary, strict=True)):
        if kind in (Kind.PLAIN, Kind.GATED):
            for slot in dict.fromkeys(s for s in primary if s >= 0):
                expected.setdefault(slot, []).append(pos)
    assert {slot: list(ps) for slot, ps in plan.by_needle[0].items()} == expected
    assert any(len(p) > len(set(p)) for p in plan.primary)


@pytest.mark.parametrize(
    "rule",
    [
        lambda e: e.get("keysecondary"),  # an empty list that applies
        lambda e: ["w00001"] if int(str(e.get("uid"))) >= 60 else None,  # reads another field
    ],
    ids=["empty-list-applies", "reads-uid"],
)
def test_secondary_keys_follow_their_rule_when_every_list_is_empty(
    monkeypatch: pytest.MonkeyPatch, rule: Any
) -> None:
    """Books whose ``keysecondary`` lists are all empty skip the rule per entry only where
    the rule, run on one entry per ``selective`` value, proves it (reads nothing else and
    gives ``None``)."""
    entries = [Entry(data={**e.data, "keysecondary": []}) for e in _entries(3)]
    monkeypatch.setattr(entry_rules, "secondary_keys", rule)
    fast = build_plan(_origins(entries, "Book"), Settings(), gate=Gate())
    one_by_one = build_plan(
        _origins(entries, "Book"),
        Settings(),
        gate=Gate(),
        untrusted=frozenset(id(e) for e in entries),
    )
    assert _facts(fast) == _facts(one_by_one)
    assert any(s is not None for s in fast.secondary)


def _uniform(seed: int) -> list[Entry]:
    """Generated entries of one class (the bulk paths), some keys repeated or odd."""
    rng = random.Random(seed)
    words = gen.vocabulary(40)
    shared = {f: v for f, v in gen.entry(0, rng, words).items() if f in SIG_FIELDS}
    shared.update(disable=False, constant=False, delayUntilRecursion=0)
    out = []
    for uid in range(150):
        data = gen.entry(uid, rng, words)
        data.update({f: v for f, v in shared.items() if f in data}, keysecondary=[])
        data.pop("characterFilter", None)
        if rng.random() < 0.1:
            data["key"] = [*data["key"], rng.choice(["", "/w1/i", "{{char}}", data["key"][0]])]
        out.append(Entry(data=data))
    return out


@pytest.mark.parametrize("make", [_entries, _uniform], ids=["mixed", "uniform"])
@pytest.mark.parametrize("seed", range(4))
def test_columns_read_in_load_order_give_the_same_plan(seed: int, make: Any) -> None:
    """A plan whose columns are read in the order the entries were loaded (``stored``)
    and put back in position order equals one read in position order."""
    entries = make(seed)
    origins = _origins(entries, "Book")
    perm = list(range(len(entries)))
    random.Random(seed).shuffle(perm)
    stored = [entries[0]] * len(entries)
    for pos, index in enumerate(perm):  # entries[pos] is stored[perm[pos]]
        stored[index] = entries[pos]
    loaded = _origins(stored, "Book")
    plain = build_plan(origins, Settings(), gate=Gate())
    reordered = build_plan(
        _origins(entries, "Book"), Settings(), gate=Gate(), stored=(loaded, perm)
    )
    assert _facts(reordered) == _facts(plain)
    assert list(reordered.entries) == list(plain.entries)


@pytest.mark.parametrize("strategy", [0, 1, 2, "1"])
def test_merge_order_indexes_the_lists_one_after_the_other(strategy: Any) -> None:
    """``merge_order`` gives R12's merge as indices into global + character + chat +
    persona, an entry gathered twice once per list it is in."""
    rng = random.Random(7)
    shared: dict[str, Any] = {"order": 5, "id": "shared"}
    lists: list[list[dict[str, Any]]] = [
        [{"order": rng.choice([1, 5, 5, 9, None, "x"]), "id": f"{n}{i}"} for i in range(6)]
        for n in "gcap"
    ]
    lists[0].append(shared)
    lists[1].append(shared)
    g, c, ch, p = lists
    sort = _js.sort_desc_by_order
    merged = (
        sort(c) + sort(g) if strategy == 1 else sort(g) + sort(c) if strategy == 2 else sort(g + c)
    )
    order = gathering.merge_order(
        global_entries=g,
        character_entries=c,
        chat_entries=ch,
        persona_entries=p,
        strategy=strategy,
    )
    every = g + c + ch + p
    assert sorted(order) == list(range(len(every)))
    assert [every[i] for i in order] == sort(ch) + sort(p) + merged
