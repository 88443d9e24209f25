"""The specification's own test vectors (st-worldinfo.md Appendix B), as tables."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pytest

from worldinfo import BookSelection, CharacterIdentity, ScanData, Settings, _js, check
from worldinfo._js import string_hash, stringify
from worldinfo.engine.buffer import whole_word_in
from worldinfo.engine.gathering import parse_decorators, sorted_entries
from worldinfo.macros import Macros
from worldinfo.types import Book


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 3338908027751811),
        ("a", 7929297801672961),
        ("abc", 5059922895146125),
        ("Hello, world!", 2981818331365660),
        ("\U0001f600", 4725715722941614),
    ],
)
def test_string_hash_b1(text: str, expected: int) -> None:
    assert string_hash(text) == expected


def test_entry_hash_b2() -> None:
    raw = (
        '{"entries": {"1": {"uid":1,"key":["dragon","wyrm"],"keysecondary":[],"comment":"Dragons",'
        '"content":"@@activate\\nDragons breathe fire.","constant":false,"selective":true,'
        '"order":100,"position":0,"probability":100,"useProbability":true,"depth":4,'
        '"displayIndex":1}, "0": {"uid":0,"key":["\u00c4tna"],"content":"Volcano \u00e9 '
        '\U0001f600","order":50.5}}}'
    )
    book = Book.from_json("Dragons", _js.parse_json(raw))
    entries = sorted_entries({"Dragons": book}, BookSelection(global_names=["Dragons"]), strategy=1)
    assert [e["hash"] for e in entries] == [469550241481988, 1823803404039778]
    assert stringify({k: v for k, v in entries[1].items() if k != "hash"}) == (
        '{"uid":0,"world":"Dragons","key":["\u00c4tna"],"content":"Volcano \u00e9 \U0001f600",'
        '"order":50.5,"decorators":[]}'
    )


@pytest.mark.parametrize(
    ("content", "decorators", "rest"),
    [
        ("@@activate\nHello", ["@@activate"], "Hello"),
        ("@@activate", ["@@activate"], "@@activate"),
        ("@@foo\n@@@activate\nX", ["@@activate"], "X"),
        ("@@@activate\nX", [], "X"),
        ("@@activate \nX", ["@@activate "], "X"),
        ("@@activate\r\nX", ["@@activate\r"], "X"),
        ("@@dont_activate\n@@activate\n\nBody", ["@@dont_activate", "@@activate"], "\nBody"),
        ("@@unknown\nBody", [], "Body"),
        ("Text @@activate", [], "Text @@activate"),
    ],
)
def test_decorators_b5(content: str, decorators: list[str], rest: str) -> None:
    assert parse_decorators(content) == (decorators, rest)


def test_key_order_and_group_split_b6() -> None:
    keys = ["b", "2", "a", "1", "01", "-1", "4294967295", "4294967294"]
    assert _js.js_key_order(keys) == ["1", "2", "4294967294", "b", "a", "01", "-1", "4294967295"]
    assert _js.split_group("a, b,c ,d,,  e") == ["a", "b", "c ", "d", "", "e"]
    assert len(_js.split_ws(" a b")) == 3
    assert len(_js.split_ws("a\u00a0b")) == 2
    assert len(_js.split_ws("a\ufeffb")) == 2


@pytest.mark.parametrize(
    ("haystack", "key", "hit"),
    [
        ("\x01i like cats", "cat", False),
        ("\x01i like cat.", "cat", True),
        ("\x01cat\n", "cat", True),
        ("\x01caf\u00e9", "caf", True),
        ("\x01na\u00efve", "na", True),
    ],
)
def test_whole_words_b4(haystack: str, key: str, hit: bool) -> None:
    assert whole_word_in(haystack, key) is hit


def test_rng_and_numbers() -> None:
    rng = _js.mulberry32(1)
    assert [rng(), rng(), rng()] == [0.6270739405881613, 0.002735721180215478, 0.5274470399599522]
    assert _js.format_number(1e21) == "1e+21"
    assert _js.format_number(1e-7) == "1e-7"
    assert _js.format_number(100.0) == "100"
    assert _js.js_round(2.5) == 3 and _js.js_round(-2.5) == -2
    assert _js.trim("\ufeff x \u0085") == "x \u0085"


# --- B.7 engine scenarios --------------------------------------------------------------------


def entry(uid: int | str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "uid": uid, "key": [], "keysecondary": [], "content": f"C{uid}", "constant": False,
        "selective": True, "selectiveLogic": 0, "order": 100, "position": 0,
        "probability": 100, "useProbability": True, "depth": 4, "group": "", "groupWeight": 100,
    }  # fmt: skip
    base.update(fields)
    return base


def scan(
    entries: Sequence[dict[str, Any]],
    chat: Sequence[str],
    *,
    rolls: Sequence[float] = (),
    books: dict[str, list[dict[str, Any]]] | None = None,
    selection: BookSelection | None = None,
    max_context: int = 8192,
    forced: Sequence[dict[str, Any]] = (),
    **settings: Any,
) -> list[str]:
    all_books = {"G": list(entries), **(books or {})}
    book_objs = {
        name: Book.from_json(name, {"entries": {str(e["uid"]): e for e in es}})
        for name, es in all_books.items()
    }
    stream = itertools.chain(rolls, itertools.repeat(0.5))
    result = check(
        book_objs,
        list(chat),
        selection=selection or BookSelection(global_names=["G"]),
        settings=Settings(**settings),
        max_context=max_context,
        rng=lambda: next(stream),
        scan_data=ScanData(),
        character=CharacterIdentity(file_name="Alice", avatar="Alice.png"),
        substitute=Macros(user="Bob", char="Alice"),
        forced=forced,
    )
    assert result.error is None
    return [f"{w}.{u}" for w, u in result.activated_keys]


def test_s1_basic_matching_and_order() -> None:
    entries = [
        entry(0, key=["dragon"], order=10),
        entry(1, key=["{{char}}"], order=20, position=1),
        entry(2, constant=True, order=20),
        entry(10, key=["cat"], matchWholeWords=True),
        entry(3, key=["/\\x01Bob:/"]),
    ]
    chat = ["Bob: I see a dragon and Alice", "Alice: concatenate"]
    assert scan(entries, chat) == ["G.3", "G.1", "G.2", "G.0"]


def test_s2_removing_a_missing_member_drops_the_last_candidate() -> None:
    entries = [
        entry(1, constant=True, group="a,b"),
        entry(2, constant=True, group="a"),
        entry(3, constant=True, group="b"),
        entry(4, constant=True),
    ]
    assert scan(entries, ["x"], rolls=[0.9, 0.9]) == ["G.2", "G.3"]


def test_s3_integer_like_group_names_are_drawn_first() -> None:
    entries = [
        entry(1, constant=True, group="z"),
        entry(2, constant=True, group="z"),
        entry(3, constant=True, group="5"),
        entry(4, constant=True, group="5"),
    ]
    assert scan(entries, ["x"], rolls=[0.1, 0.9]) == ["G.2", "G.3"]


@pytest.mark.parametrize(
    ("uids", "recursive", "expected"),
    [
        ((1, 2, 3), False, ["G.1", "G.2", "G.3"]),
        ((1, 2), False, ["G.1"]),
        ((1, 2), True, ["G.1", "G.2"]),
    ],
)
def test_s5_delay_until_recursion_levels(
    uids: tuple[int, ...], recursive: bool, expected: list[str]
) -> None:
    all_entries = {
        1: entry(1, key=["start"], content="alpha"),
        2: entry(2, key=["alpha"], delayUntilRecursion=1),
        3: entry(3, key=["alpha"], delayUntilRecursion=2),
    }
    assert scan([all_entries[u] for u in uids], ["start"], recursive=recursive) == expected


def test_s6_min_activations_scan_one_beyond_depth_max() -> None:
    entries = [entry(1, key=["third"])]
    chat = ["first", "second", "third", "fourth"]
    got = scan(entries, chat, depth=1, min_activations=2, min_activations_depth_max=2)
    assert got == ["G.1"]


def test_s8_budget_overflow_stops_the_pass() -> None:
    entries = [
        entry(1, constant=True, content="a" * 40),
        entry(2, constant=True, content="b" * 40),
        entry(3, constant=True, content="c"),
    ]
    assert scan(entries, ["x"], max_context=100) == ["G.1"]


def test_s9_recursion_budget_counts_only_recursed_text() -> None:
    entries = [
        entry(1, constant=True, preventRecursion=True, content="p" * 60),
        entry(2, constant=True, content="trig"),
        entry(3, key=["trig"], content="q" * 40),
    ]
    assert scan(entries, ["x"], max_context=100, recursive=True) == ["G.1", "G.2", "G.3"]


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [(0, ["G.1", "C.1", "G.2"]), (1, ["C.1", "G.1", "G.2"]), (2, ["G.1", "G.2", "C.1"])],
)
def test_s10_insertion_strategies(strategy: int, expected: list[str]) -> None:
    got = scan(
        [entry(1, constant=True, order=50), entry(2, constant=True, order=10)],
        ["x"],
        books={"C": [entry(1, constant=True, order=30)]},
        selection=BookSelection(global_names=["G"], character_names=["C"]),
        character_strategy=strategy,
    )
    assert got == expected


def test_s12_probability_rolls() -> None:
    entries = [entry(1, constant=True, probability=50), entry(2, constant=True, probability=49)]
    assert scan(entries, ["x"], rolls=[0.5, 0.5]) == ["G.1"]


def test_s13_group_already_active_compares_raw_group_strings() -> None:
    entries = [
        entry(1, key=["start"], group="a,b", content="beta"),
        entry(2, key=["beta"], group="a"),
    ]
    assert scan(entries, ["start"], recursive=True) == ["G.1", "G.2"]
    entries[0]["group"] = "a"
    assert scan(entries, ["start"], recursive=True) == ["G.1"]


def test_s14_group_scoring() -> None:
    entries = [
        entry(1, key=["x"], group="g"),
        entry(2, key=["x", "y"], group="g"),
        entry(3, key=["x", "y"], group="g"),
    ]
    assert scan(entries, ["x y"], rolls=[0.99], use_group_scoring=True) == ["G.3"]


def test_s15_a_book_selected_twice_is_scanned_twice() -> None:
    entries = [
        entry(1, constant=True, content="a" * 30),
        entry(2, constant=True, order=5, content="b" * 20),
    ]
    twice = BookSelection(global_names=["G", "G"])
    assert scan(entries, ["x"], max_context=100, selection=twice) == ["G.1"]
    assert scan(entries, ["x"], max_context=100) == ["G.1", "G.2"]


def test_s16_forced_object_is_rerolled_in_later_passes() -> None:
    entries = [
        entry(1, key=["start"], content="beta"),
        entry(2, key=["beta"]),
        entry(3, key=["nomatch"]),
    ]
    forced = [
        {"world": "G", "uid": 3, "content": "EXT", "probability": 50, "useProbability": True,
         "order": 1}
    ]  # fmt: skip
    got = scan(entries, ["start"], rolls=[0.9, 0.1], recursive=True, forced=forced)
    assert got == ["G.1", "G.3", "G.2"]


def test_s17_selective_logic_is_compared_strictly() -> None:
    entries = [
        entry(1, key=["x"], keysecondary=["x"], selectiveLogic="0"),
        entry(2, key=["x"], keysecondary=["x"], selectiveLogic=0),
        entry(3, key=["x"], keysecondary=["x"]),
    ]
    del entries[2]["selectiveLogic"]
    assert scan(entries, ["x"]) == ["G.2", "G.3"]


def test_s18_character_filters() -> None:
    entries = [
        entry(1, constant=True, characterFilter={"isExclude": False, "names": ["Alice"]}),
        entry(2, constant=True, characterFilter={"isExclude": True, "names": ["Alice"]}),
        entry(3, constant=True, characterFilter={"isExclude": False, "names": [], "tags": ["t1"]}),
    ]
    assert scan(entries, ["x"]) == ["G.1"]


def test_s19_entries_enumerate_in_js_key_order() -> None:
    book = {"entries": {"a": entry("a", constant=True), "10": entry(10, constant=True),
                        "2": entry(2, constant=True)}}  # fmt: skip
    g = Book.from_json("G", _js.reorder(book))
    result = check(
        {"G": g}, ["x"], selection=BookSelection(global_names=["G"]), settings=Settings(),
        max_context=8192, rng=lambda: 0.5,
    )  # fmt: skip
    assert [u for _, u in result.activated_keys] == [2, 10, "a"]


@pytest.mark.parametrize(
    ("fields", "active"),
    [
        ({"key": ["   "]}, True),
        ({"key": ["x"], "scanDepth": 0}, False),
        ({"key": ["/^$/"], "scanDepth": 0}, True),
    ],
)
def test_s20_whitespace_keys_and_zero_scan_depth(fields: dict[str, Any], active: bool) -> None:
    assert scan([entry(1, **fields)], ["x"]) == (["G.1"] if active else [])


def _reference_hash(s: str) -> int:
    """cyrb53 written out step by step from FORMAT.md section 4 (the spec's recipe)."""

    def imul(a: int, b: int) -> int:
        return (a * b) & 0xFFFFFFFF

    h1, h2 = 0xDEADBEEF, 0x41C6CE57
    for c in _js.to_utf16_units(s):
        h1 = imul(h1 ^ c, 2654435761)
        h2 = imul(h2 ^ c, 1597334677)
    h1 = imul(h1 ^ (h1 >> 16), 2246822507) ^ imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = imul(h2 ^ (h2 >> 16), 2246822507) ^ imul(h1 ^ (h1 >> 13), 3266489909)
    return 4294967296 * (2097151 & h2) + (h1 & 0xFFFFFFFF)


def test_string_hash_equals_the_recipe_on_random_text() -> None:
    import random

    rnd = random.Random(7)
    ranges = [(0, 127), (128, 0xD7FF), (0xD800, 0xDFFF), (0x10000, 0x10FFFF)]
    for _ in range(2000):
        text = "".join(chr(rnd.randint(*rnd.choice(ranges))) for _ in range(rnd.randint(0, 24)))
        assert string_hash(text) == _reference_hash(text), repr(text)


def _timed_scan(entries: Sequence[dict[str, Any]], chat: Sequence[str], timed: Any) -> Any:
    book = Book.from_json("G", {"entries": {str(e["uid"]): e for e in entries}})
    return check(
        {"G": book}, list(chat), selection=BookSelection(global_names=["G"]),
        settings=Settings(), max_context=8192, rng=lambda: 0.5, timed_world_info=timed,
    )  # fmt: skip


@pytest.mark.parametrize("grouped", [True, False])
def test_s4_sticky_member_of_a_group_is_removed_by_its_own_cooldown(grouped: bool) -> None:
    group = "g" if grouped else ""
    entries = [
        entry(1, key=["k"], group=group, sticky=3, cooldown=4),
        entry(2, key=["zzz"], group=group),
    ]
    first = _timed_scan(entries, ["k"] * 5, None)
    assert first.activated_keys == [("G", 1)]
    records = first.timed_world_info
    assert {k: (v["start"], v["end"]) for k, v in records["sticky"].items()} == {"G.1": (5, 8)}
    assert {k: (v["start"], v["end"]) for k, v in records["cooldown"].items()} == {"G.1": (5, 9)}
    second = _timed_scan(entries, ["nothing"] * 7, records)
    assert second.activated_keys == ([] if grouped else [("G", 1)])


def test_s7_equal_orders_come_out_in_reverse_activation_order() -> None:
    entries = [
        entry(1, constant=True, order=100),
        entry(2, constant=True, order=100),
        entry(3, constant=True, order=50),
    ]
    result = _timed_scan(entries, ["x"], None)
    assert result.activated_keys == [("G", 1), ("G", 2), ("G", 3)]
    assert result.before == "C3\nC2\nC1"


def test_s11_chat_and_persona_books_come_first_whatever_their_order() -> None:
    got = scan(
        [entry(1, constant=True, order=500)],
        ["x"],
        books={
            "C": [entry(1, constant=True, order=300)],
            "H": [entry(1, constant=True, order=1)],
            "P": [entry(1, constant=True, order=2)],
        },
        selection=BookSelection(
            global_names=["G"], character_names=["C"], chat_name="H", persona_name="P"
        ),
        max_context=100000,
    )
    assert got == ["H.1", "P.1", "C.1", "G.1"]
