"""``worldinfo replay``: turn records, per-entry figures, and agreement with plain scans."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from replay_data import make_book, make_chat, write_book, write_chat, write_jsonl

from worldinfo import _js
from worldinfo._js import JSONValue, mulberry32
from worldinfo.cli import main
from worldinfo.cli.replay import ProgressBar
from worldinfo.engine.timed_effects import entry_key
from worldinfo.examples import path as example
from worldinfo.replay import ReplayStats, catalog, collect, replay_chat, turn_points
from worldinfo.session import Session
from worldinfo.types import Book, Message, Settings

SETTINGS = Settings(recursive=True, budget=10)
CONTEXT = 2000


def _msg(text: str, *, user: bool = False, system: bool = False) -> Message:
    return Message(name="U" if user else "B", mes=text, is_user=user, is_system=system)


def _session(book: Book, rng: Callable[[], float], **kw: object) -> Session:
    return Session(
        books={book.name: book},
        global_books=[book.name],
        settings=SETTINGS,
        max_context=CONTEXT,
        rng=rng,
        **kw,  # type: ignore[arg-type]
    )


def _replay(book: Book, chat: list[Message], seed: int = 3) -> ReplayStats:
    s = _session(book, mulberry32(seed))
    return collect(replay_chat(s, chat, chat="gen"), catalog(s.books, s.selection_names()))


@pytest.mark.parametrize(
    ("chat", "types", "expected"),
    [
        ([_msg("hi"), _msg("q", user=True), _msg("a")], [], [(2, "normal")]),
        (
            [_msg("q", user=True), _msg("a"), _msg("q2", user=True)],
            [],
            [(1, "normal"), (3, "normal")],
        ),
        ([_msg("g"), _msg("sys", system=True), _msg("a")], [], [(2, "normal")]),
        (
            [_msg("g"), _msg("me", user=True)],
            [None, "impersonate"],
            [(1, "impersonate"), (2, "normal")],
        ),
        ([_msg("g"), _msg("q", user=True), _msg("a")], [None, None, "continue"], [(2, "continue")]),
        ([_msg("g"), _msg("a")], [None, "made-up"], [(1, "normal")]),
        ([], [], []),
    ],
)
def test_turn_points(
    chat: list[Message], types: list[str | None], expected: list[tuple[int, str]]
) -> None:
    assert turn_points(chat, types) == expected


def test_replay_agrees_with_a_scan_by_scan_run() -> None:
    """Each turn equals a fresh session over the same messages, carrying only the timed
    state from the previous scan and the same random stream, scanned without a trace."""
    book, chat = make_book(), make_chat(messages=80)
    stats = _replay(book, chat)
    rng = mulberry32(3)
    timed: JSONValue = {}
    fired: Counter[str] = Counter()
    for turn in stats.turns:
        fresh = _session(
            book, rng, chat=chat[: turn.message], chat_metadata={"timedWorldInfo": timed}
        )
        result = fresh.generate(turn.type)
        timed = fresh.chat_metadata["timedWorldInfo"]
        keys = [entry_key(e) for e in result.activated]
        assert [f.key for f in turn.fired] == keys, f"turn {turn.index}"
        contents = [_js.to_string(e.get("content")) for e in result.activated]
        assert [f.tokens for f in turn.fired] == [_js.st_token_estimate(c) for c in contents]
        total = _js.st_token_estimate("".join(c + "\n" for c in contents)) if contents else 0
        assert turn.tokens == total
        fired.update(keys)
    assert {s.info.key: s.fired for s in stats.entries if s.fired} == dict(fired)
    # the comparison covers every way of firing and every cut
    hows = Counter(h for s in stats.entries for h in s.how)
    cuts = Counter(c for s in stats.entries for c in s.cuts)
    assert {"key", "recursion", "constant", "sticky"} <= set(hows)
    assert {"budget", "cooldown", "delay", "group", "probability"} <= set(cuts)
    assert stats.overflows > 0


def test_recursion_names_the_entries_whose_content_held_the_key() -> None:
    stats = _replay(make_book(), make_chat(messages=80))
    by_turn = 0
    for turn in stats.turns:
        loops = {f.key: f.loop for f in turn.fired}
        for f in turn.fired:
            if f.how != "recursion":
                assert f.sources == ()
                continue
            assert f.sources, f"turn {turn.index}: {f.key} woke from nothing"
            for src in f.sources:
                assert loops[src] < f.loop
            by_turn += 1
    assert by_turn > 10


def test_overflow_is_a_budget_cut_and_figures_add_up() -> None:
    stats = _replay(make_book(), make_chat(messages=60))
    n = len(stats.turns)
    for t in stats.turns:
        assert t.overflowed == ("budget" in t.cut.values())
        assert not set(t.cut) & {f.key for f in t.fired}
    for s in stats.entries:
        assert sum(s.how.values()) == s.fired <= n
        assert s.tokens == sum(
            f.tokens for t in stats.turns for f in t.fired if f.key == s.info.key
        )
    assert [s.info.key for s in stats.never_fired] == [
        s.info.key for s in stats.entries if s.fired == 0 and s.info.enabled
    ]
    assert "gen.29" in {s.info.key for s in stats.never_fired}
    assert "gen.0" in {s.info.key for s in stats.always_fired}


def test_cli_replay_reads_jsonl_and_chat_json_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book, chat = make_book(), make_chat(messages=30)
    book_file = write_book(tmp_path / "gen.json", book)
    outs = []
    for chat_file in (
        write_chat(tmp_path / "c.json", chat),
        write_jsonl(tmp_path / "c.jsonl", chat),
    ):
        args = [str(book_file), "--chat", str(chat_file), "--recursive", "--budget", "10"]
        assert main(["replay", *args, "--max-context", "2000", "--seed", "3", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        del data["summary"]["chats"]
        for t in data["turns"]:
            del t["chat"]
        outs.append(data)
    assert outs[0] == outs[1]
    expected = _replay(book, chat)
    assert outs[0]["summary"]["turns"] == len(expected.turns)
    assert [e["fired"] for e in outs[0]["entries"]] == [s.fired for s in expected.entries]


def test_cli_replay_text_names_never_and_always_fired(capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        str(example("emberfall.json")),
        "--chat",
        str(example("emberfall-chat.json")),
        "--seed",
        "1",
    ]
    assert main(["replay", *args]) == 0
    out = capsys.readouterr()
    assert "Never fired in 2 turn(s)" in out.out
    assert "Always fired in 2 turn(s) (1): emberfall#4 Narration style" in out.out
    assert "the budget overflowed in 0 of 2 turn(s)" in out.out
    assert out.err == ""  # no progress bar when stderr is not a terminal


def test_generation_type_comes_from_the_chat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = [
        {"name": "B", "mes": "hello"},
        {"name": "U", "is_user": True, "mes": "tell me"},
        {"name": "B", "mes": "more", "extra": {"gen_type": "continue"}},
        {"name": "U", "is_user": True, "mes": "me", "gen_type": "impersonate"},
    ]
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(items), encoding="utf-8")
    assert main(["replay", str(example("emberfall.json")), "--chat", str(chat), "--json"]) == 0
    turns = json.loads(capsys.readouterr().out)["turns"]
    assert [(t["message"], t["type"]) for t in turns] == [
        (2, "continue"),
        (3, "impersonate"),
        (4, "normal"),
    ]


def test_missing_chat_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.jsonl"
    assert main(["replay", str(example("emberfall.json")), "--chat", str(missing)]) == 1
    assert str(missing) in capsys.readouterr().err


def test_progress_bar_draws_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    bar = ProgressBar("chat")
    for i in range(1, 201):
        bar(i, 200)
    err = capsys.readouterr().err
    assert err.count("\r") == 101  # once per percent, 0 to 100
    assert err.endswith("200/200 turns\n")


def test_replay_needs_an_empty_session() -> None:
    book = make_book()
    with pytest.raises(ValueError, match="empty chat"):
        replay_chat(_session(book, mulberry32(1), chat=[_msg("x")]), [_msg("y")])


def test_progress_bar_only_on_a_terminal(tmp_path: Path) -> None:
    """With stderr a terminal (a pty here) the replay draws its bar there; stdout is the report."""
    import os
    import pty
    import subprocess
    import sys

    book = write_book(tmp_path / "gen.json", make_book())
    chat = write_chat(tmp_path / "c.json", make_chat(messages=40))
    main_fd, child_fd = pty.openpty()
    cmd = [sys.executable, "-m", "worldinfo", "replay", str(book), "--chat", str(chat), "--json"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=child_fd, timeout=300, check=False)
    os.close(child_fd)
    err = b""
    while True:
        try:
            chunk = os.read(main_fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    os.close(main_fd)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["summary"]["turns"] == 20
    assert b"\rc.json [" in err and b"20/20 turns" in err


def test_settings_file_sets_the_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"budget": 1, "recursive": True}), encoding="utf-8")
    args = [str(example("emberfall.json")), "--chat", str(example("emberfall-chat.json"))]
    assert main(["replay", *args, "--settings", str(settings), "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {t["budget"] for t in data["turns"]} == {82}  # 1% of 8192, rounded
    assert data["summary"]["overflows"] == sum(1 for t in data["turns"] if t["overflowed"]) > 0
