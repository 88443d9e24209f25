"""One valid draft 2020-12 schema per format read; problems carry JSON paths."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from worldinfo import importers
from worldinfo.importers.model import FORMATS
from worldinfo.importers.schema import schema_dir, schema_names


def test_one_schema_per_format() -> None:
    assert set(FORMATS) <= set(schema_names())
    for name in schema_names():
        schema = json.loads((schema_dir() / f"{name}.schema.json").read_text(encoding="utf-8"))
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize(
    ("doc", "path"),
    [
        ({"entries": {"0": {"uid": 0}, "1": 5}}, "$.entries.1"),
        ({"lorebookVersion": 4, "entries": [{"displayName": None}]}, "$.entries.0.displayName"),
        ({"type": "risu", "data": [{"key": 3}]}, "$.data.0.key"),
        ({"type": "risu", "data": [{"key": "a", "secondkey": ["b"]}]}, "$.data.0.secondkey"),
        ({"kind": "memory", "name": "x"}, "$"),
        (
            {"spec": "chara_card_v2", "data": {"character_book": {"entries": {}}}},
            "$.data.character_book.entries",
        ),
        ({"worldinfo": [1], "actions": []}, "$.worldinfo.0"),
        ({"user_name": "u", "chat_metadata": []}, "$.0.chat_metadata"),
    ],
)
def test_problem_paths(doc: object, path: str) -> None:
    raw = json.dumps(doc).encode()
    problems = list(importers.iter_problems(raw, name="doc.json"))
    assert path in [p.json_path for p in problems], problems
    with pytest.raises(importers.LorebookImportError) as info:
        importers.load(raw, name="doc.json")
    assert info.value.file == "doc.json" and info.value.problems == tuple(problems)


def test_other_images_are_refused_clearly() -> None:
    with pytest.raises(importers.LorebookImportError, match="JPEG image carries no"):
        importers.load(b"\xff\xd8\xff\xe0" + b"\x00" * 50, name="x.jpg")
    assert next(importers.iter_problems(b"{}", name="doc.json")).json_path == "$"


def test_naidata_png_is_a_novelai_book() -> None:
    import base64

    from worldinfo.importers.export import png_card_bytes
    from worldinfo.importers.png import replace_text_chunks

    book = {"lorebookVersion": 4, "entries": [{"keys": ["k"], "text": "t", "enabled": True}]}
    text = base64.b64encode(json.dumps(book).encode()).decode()
    png = replace_text_chunks(
        png_card_bytes({"spec": "x"}), [("naidata", text)], limits=importers.DEFAULT_LIMITS
    )
    imp = importers.load(png, name="book.png")
    assert imp.format == "novelai-lorebook" and imp.extracted_from == "naidata"
