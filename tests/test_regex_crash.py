"""Regex keys that segfault ``regex`` V0 when compiled are refused before it sees them.

Each key is compiled through the engine's path (``regex_key`` and one test) in a child
process, so a regression shows as a failed test instead of a dead test runner.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

CHILD = """
import sys
from worldinfo._js.regex import RegexTimeout, regex_key
key = regex_key(sys.argv[1])
try:
    print(key is not None and key.test("a" * 50))
except RegexTimeout as exc:
    print("refused", exc.reason)
"""


def _compile_in_child(key: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, key], check=False, capture_output=True, text=True, timeout=120
    )


def test_many_empty_matching_counts_are_refused_not_crashing() -> None:
    key = "/" + "(?:a|){60000}" * 12 + "/"  # ~300k unrolled copies: regex V0 segfaults
    done = _compile_in_child(key)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused counted repeat beyond the compile limit")


def test_the_nested_count_crasher_compiles_bounded() -> None:
    done = _compile_in_child("/(?:(?:a|){687}?){587,870}?/")
    assert done.returncode == 0, done.stderr


@settings(max_examples=8, deadline=None)
@given(
    counts=st.lists(st.integers(min_value=1, max_value=100_000), min_size=1, max_size=3),
    repeats=st.integers(min_value=1, max_value=12),
    lazy=st.booleans(),
)
def test_generated_nested_counts_never_crash(counts: list[int], repeats: int, lazy: bool) -> None:
    body = "a|"
    for n in counts:
        body = f"(?:{body}){{{n}}}{'?' if lazy else ''}"
    done = _compile_in_child("/" + body * repeats + "/")
    assert done.returncode == 0, done.stderr


def test_scan_and_lint_of_a_book_holding_crashers_exit_normally(tmp_path: Path) -> None:
    keys = ["/(?:(?:a|){687}?){587,870}?/", "/" + "(?:a|){60000}" * 12 + "/"]
    entries = {
        str(i): {"uid": i, "key": [k], "content": f"c{i}", "position": 0}
        for i, k in enumerate(keys)
    }
    book = tmp_path / "book.json"
    book.write_text(json.dumps({"entries": entries}), encoding="utf-8")
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"name": "U", "is_user": True, "mes": "a" * 80}]), encoding="utf-8")
    run = [sys.executable, "-m", "worldinfo"]
    scan = [*run, "scan", str(book), "--chat", str(chat), "--json"]
    done = subprocess.run(scan, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    warnings = json.loads(done.stdout)["warnings"]
    assert any("counted repeat beyond the compile limit" in w for w in warnings), warnings
    lint = [*run, "lint", str(book), "--format", "json"]
    done = subprocess.run(lint, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode in (0, 1), done.stderr[-2000:]  # 1: the lint found errors
    assert done.stdout.count("WI011") == len(keys), done.stdout
