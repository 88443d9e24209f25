"""The key index finds exactly the keys ``match_key`` finds (R22-R25), whatever the text.

``KeyIndex`` (Aho-Corasick automata and the whole-word test around each occurrence) is
compared with ``ScanBuffer.match_key`` itself on generated keys and scan texts: unicode,
letters whose lower case is longer or ASCII (``İ``, the Kelvin sign), final sigma, lone
surrogates, whole-word edges, keys that overlap, that are prefixes or suffixes of each other
or cut out of the text, empty and whitespace-only keys. The index sees the pieces of the
scan text one by one (as the fast scan feeds them); ``match_key`` sees them joined into the
haystack the buffer builds (R18), so the line-by-line decomposition is checked too.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from worldinfo import _js
from worldinfo.engine import entry_rules
from worldinfo.engine.buffer import JOINER, MATCHER, ScanBuffer
from worldinfo.engine.fast.matcher import ALWAYS, KeyIndex, Needle
from worldinfo.types import Settings

ALPHABET = [
    *"aAbB_1 -.'\t\u00a0",
    *"éÉßΣσςİ\u212a\u0301",  # accents, final sigma, İ -> "i̇", Kelvin sign -> "k"
    "\U0001f600",
    "\ud800",
    "\n",
    "\x01",
]
CHARS = st.one_of(st.sampled_from(ALPHABET), st.characters(codec=None))
TEXT = st.text(CHARS, max_size=12)
PIECE = st.text(st.sampled_from(ALPHABET), max_size=30)


def needle_for(key: str, entry: dict[str, bool], config: Settings) -> Needle | None:
    """The needle the plan registers for a plain key (``None``: the index does not take it)."""
    text = _js.trim(key)
    case = entry_rules.case_sensitive(entry, config)
    text = text if case else _js.lower(text)
    if "\n" in text or "\x01" in text:
        return None
    word = entry_rules.whole_words(entry, config) and entry_rules.one_word(text)
    return Needle(text=text, lowered=not case, whole_word=word)


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Scan-text pieces and keys, many of them related to each other and to the text."""
    pieces = draw(st.lists(PIECE, min_size=1, max_size=4))
    keys = draw(st.lists(TEXT, max_size=6))
    joined = "\n".join(pieces)
    for _ in range(draw(st.integers(0, 6))):
        i = draw(st.integers(0, len(joined)))
        j = draw(st.integers(i, min(len(joined), i + 8)))
        keys.append(joined[i:j])  # cut out of the text: found, or cut at a word edge
    for key in list(keys):
        if key:
            cut = draw(st.integers(0, len(key)))
            keys += [key[:cut], key[cut:], key.upper(), f" {key} "]
    return pieces, keys


@given(case=cases(), flags=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1))
@settings(max_examples=400, deadline=None)
def test_index_agrees_with_match_key(
    case: tuple[list[str], list[str]], flags: list[tuple[bool, bool]]
) -> None:
    pieces, keys = case
    config = Settings()
    buffer = ScanBuffer(chat=[], settings=config)
    haystack = MATCHER + JOINER.join(pieces)
    index = KeyIndex()
    registered = []
    for n, key in enumerate(keys):
        if _js.trim(key).startswith("/"):
            continue  # may be a regex key: not a plain needle
        case_sensitive, whole = flags[n % len(flags)]
        entry = {"caseSensitive": case_sensitive, "matchWholeWords": whole}
        needle = needle_for(key, entry, config)
        if needle is not None:
            registered.append((index.add(needle), key, entry))
    index.freeze()
    found = index.found_all(pieces)
    for nid, key, entry in registered:
        want = buffer.match_key(haystack, _js.trim(key), entry)
        assert (nid == ALWAYS or nid in found) == want, (key, entry, pieces)


@given(lines=st.lists(PIECE.map(lambda s: s.replace("\n", " ")), min_size=1, max_size=5))
@settings(max_examples=200, deadline=None)
def test_line_cache_and_text_split_agree(lines: list[str]) -> None:
    index = KeyIndex()
    for word in ("a", "ab", "b", "a-b", "é", "σ", "ς"):
        for lowered in (False, True):
            for whole in (False, True):
                index.add(Needle(text=word, lowered=lowered, whole_word=whole))
    each = [index.found(line) for line in lines]
    assert index.found_text("\n".join(lines)) == set().union(*each)
    index.forget_lines()
    assert [index.found(line) for line in lines] == each


def test_ids_are_stable_and_kinds_are_distinct() -> None:
    index = KeyIndex()
    kinds = [
        Needle(text="ab", lowered=lo, whole_word=wh) for lo in (False, True) for wh in (False, True)
    ]
    ids = [index.add(n) for n in kinds]
    assert len(set(ids)) == 4 and ALWAYS not in ids
    assert [index.add(n) for n in kinds] == ids
    assert index.add(Needle(text="", lowered=True, whole_word=True)) == ALWAYS
    assert index.found("xab") == {ids[0], ids[2]}  # substring needles only
    assert index.found("x ab.") == set(ids)


def test_needles_added_after_a_lookup_are_found() -> None:
    index = KeyIndex()
    first = index.add(Needle(text="dragon", lowered=True, whole_word=False))
    index.freeze()
    assert index.found("the dragon and the moon") == {first}
    later = index.add(Needle(text="moon", lowered=True, whole_word=True))
    assert index.found("the dragon and the moon") == {first, later}
    assert index.found_text("moon\ndragons") == {first, later}


def test_overlapping_occurrences_each_get_the_whole_word_test() -> None:
    # "aa" occurs at 0, 1 and 2 of "aaa aa": only the last occurrence stands alone. An
    # automaton reporting non-overlapping (leftmost) matches would see "aa" at 0 only.
    # "a.a" (not only word characters: each occurrence is tested) likewise.
    index = KeyIndex()
    words = index.add(Needle(text="aa", lowered=False, whole_word=True))
    tested = index.add(Needle(text="a.a", lowered=False, whole_word=True))
    assert index.found("aaa") == frozenset()
    assert index.found("aaa aa") == {words}
    assert index.found("aaaa-aa") == {words}
    assert index.found("a.aaa.a") == frozenset()
    assert index.found("a.aaa.a a.a") == {tested}
    assert index.found("aaa.a.a") == {tested}
    assert index.found("é aa\ud800 a.a\U0001f600") == {words, tested}
