"""README's console examples print what the README shows, run from a fresh clone's root.

Each ``$ worldinfo ...`` line of a ``console`` block runs in-process from a scratch folder
that holds the clone's files (so outputs like ``-o seraphina.json`` land there); its stdout
then stderr must equal the lines shown, where a ``...`` line stands for any lines. Skipped:
``golden golden`` (minutes; CI runs the golden suite as tests) and the ``memory`` commands
(``tests/test_retriever_cli.py`` covers them; the example's pick is checked below).
"""

from __future__ import annotations

import io
import re
import shlex
from pathlib import Path

import pytest

from worldinfo.cli import main

REPO = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```console\n(.*?)```", re.DOTALL)
SKIP = ("worldinfo golden golden", "worldinfo memory", "--memory")


def _examples() -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for block in BLOCK.findall((REPO / "README.md").read_text(encoding="utf-8")):
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append((line[2:], []))
            elif out:
                out[-1][1].append(line)
    return [(cmd, shown) for cmd, shown in out if not any(s in cmd for s in SKIP)]


def _matches(shown: list[str], got: list[str]) -> bool:
    """``got`` equals ``shown`` where each ``...`` line matches any run of lines."""
    parts = "\n".join(shown).split("...")
    pattern = ".*".join(re.escape(p.strip("\n")) for p in parts)
    return re.fullmatch(pattern, "\n".join(got), re.DOTALL) is not None


@pytest.mark.parametrize(("command", "shown"), _examples(), ids=[c for c, _ in _examples()])
def test_readme_example(
    command: str,
    shown: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("worldinfo", "tests", "golden"):
        (tmp_path / name).symlink_to(REPO / name)
    monkeypatch.chdir(tmp_path)
    stdin = b""
    if command.startswith("echo "):
        echoed, _, command = command.partition(" | ")
        stdin = (shlex.split(echoed)[1] + "\n").encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    argv = shlex.split(command)
    assert argv[0] == "worldinfo"
    main(argv[1:])
    out, err = capsys.readouterr()
    got = [*out.rstrip("\n").splitlines(), *err.rstrip("\n").splitlines()]
    got = [line.rstrip() for line in got]
    assert _matches([line.rstrip() for line in shown], got), "\n".join(got)


def test_examples_found() -> None:
    assert len(_examples()) >= 8


def test_memory_example_picks_the_exchange_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """README's memory example on the bundled history: the query's only keyword is the rare
    word "cinnamon", and the pick is the exchange that mentions it (the first one)."""
    history = REPO / "worldinfo" / "examples" / "emberfall-history.jsonl"
    db = str(tmp_path / "memory.db")
    assert main(["memory", "ingest", str(history), "--db", db]) == 0
    assert "52 exchanges, 52 ingested" in capsys.readouterr().out
    assert main(["memory", "query", "--db", db, "Which ship carried the cinnamon?"]) == 0
    out = capsys.readouterr().out
    assert "  cinnamon " in out and "pick: #1 emberfall-history#0:" in out
