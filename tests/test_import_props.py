"""Property tests: any JSON placed in any format's skeleton imports or raises the typed
error, and whatever imports survives export -> import as a SillyTavern world."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from worldinfo import importers
from worldinfo._js import canonical, stringify
from worldinfo.importers.export import character_book, world_json

EXAMPLES = max(50, int(os.environ.get("WORLDINFO_FUZZ_EXAMPLES", "3000")) // 10)

scalars = st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.text(max_size=8)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
FIELDS = [
    "key",
    "keys",
    "keysecondary",
    "secondary_keys",
    "content",
    "text",
    "entry",
    "uid",
    "id",
    "order",
    "insertion_order",
    "position",
    "enabled",
    "disable",
    "constant",
    "extensions",
    "displayName",
    "contextConfig",
    "keywords",
    "weight",
    "name",
    "comment",
    "secondkey",
    "activationPercent",
    "alwaysActive",
    "probability",
    "keyanti",
    "widisabled",
]
entry = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6)


def _skeleton(kind: int, entries: list[dict[str, Any]], extra: Any) -> Any:
    if kind == 0:
        return {"entries": {str(i): e for i, e in enumerate(entries)}, "_meta": extra}
    if kind == 1:
        return {
            "spec": "chara_card_v2",
            "data": {"name": extra, "character_book": {"entries": entries}},
        }
    if kind == 2:
        return {"lorebookVersion": 4, "entries": entries}
    if kind == 3:
        return {"kind": "memory", "entries": entries}
    if kind == 4:
        return {"type": "risu", "data": entries}
    if kind == 5:
        return {"worldinfo": entries, "gamestarted": True}
    return {"spec": "lorebook_v3", "data": {"entries": entries, "name": extra}}


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.integers(0, 6), st.lists(entry, max_size=4), json_values)
def test_any_skeleton_imports_or_raises_the_typed_error(
    kind: int, entries: list[dict[str, Any]], extra: Any
) -> None:
    raw = stringify(_skeleton(kind, entries, extra)).encode("utf-8", "surrogatepass")
    try:
        imp = importers.load(raw, name="prop.json")
    except importers.LorebookImportError as err:
        assert err.problems and not any("internal error" in p.message for p in err.problems)
        return
    for book in imp.books:
        stringify(character_book(book))
        again = importers.load(
            stringify(world_json(book)).encode("utf-8", "surrogatepass"), name=book.name + ".json"
        )
        assert canonical(world_json(again.books[0])) == canonical(world_json(book))
