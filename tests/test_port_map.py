"""``port.yaml``'s module map names modules that exist, and names every engine module."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PORT = ROOT / "worldinfo" / "port.yaml"


def _module_map() -> str:
    text = PORT.read_text(encoding="utf-8")
    block = text.split("\nmodule_map:\n", 1)[1]
    return re.split(r"\n(?=\S)", block, maxsplit=1)[0]


def _named_paths() -> set[str]:
    return set(re.findall(r"worldinfo/[\w/]+(?:\.py|/)", _module_map()))


def test_every_named_module_exists() -> None:
    missing = sorted(p for p in _named_paths() if not (ROOT / p).exists())
    assert missing == []


def test_every_engine_module_is_named() -> None:
    named = _named_paths()
    engine = ROOT / "worldinfo" / "engine"
    modules = {str(p.relative_to(ROOT)) for p in engine.rglob("*.py") if p.name != "__init__.py"}
    assert modules, "no engine modules found"
    assert sorted(modules - named) == []
