"""The replay's HTML page (structure, self-containment, size), output files and lint --chat."""

from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from replay_data import make_book, make_chat, write_book, write_chat

from worldinfo._js import mulberry32
from worldinfo.cli import main
from worldinfo.cli._atomic import OutputError, write_text_atomic
from worldinfo.examples import path as example
from worldinfo.replay import ReplayStats, catalog, collect, replay_chat
from worldinfo.replay.html import render_html
from worldinfo.session import Session
from worldinfo.types import Book, Entry, Message, Settings


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.data: dict[str, str] = {}
        self._in = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        self._in = a.get("id") or ""

    def handle_data(self, data: str) -> None:
        if self._in:
            self.data[self._in] = self.data.get(self._in, "") + data


def _stats(book: Book, chat: list[Message]) -> ReplayStats:
    s = Session(
        books={book.name: book},
        global_books=[book.name],
        settings=Settings(recursive=True, budget=10),
        max_context=2000,
        rng=mulberry32(3),
    )
    return collect(replay_chat(s, chat), catalog(s.books, s.selection_names()))


def _parse(page: str) -> _Elements:
    p = _Elements()
    p.feed(page)
    return p


def test_page_is_self_contained() -> None:
    page = render_html(_stats(make_book(), make_chat(messages=20)))
    p = _parse(page)
    names = {t for t, _ in p.tags}
    assert not names & {"link", "img", "iframe", "object", "embed"}
    assert all("src" not in a for _, a in p.tags)
    urls = set(re.findall(r"https?://[^\s\"')]+", page))
    assert urls == {"http://www.w3.org/2000/svg"}  # a namespace name, never fetched
    assert "@import" not in page and "url(" not in page.replace("url(#arrow)", "")


def test_embedded_figures_match_the_replay() -> None:
    stats = _stats(make_book(), make_chat(messages=40))
    p = _parse(render_html(stats))
    data = json.loads(p.data["data"])
    assert [e[0] for e in data["entries"]] == [s.info.key for s in stats.entries]
    for row, s in zip(data["rows"], stats.entries, strict=True):
        cells = "".join(c * int(n) for n, c in re.findall(r"(\d+)(\D)", row))
        assert len(cells) == len(stats.turns)
        assert sum(1 for c in cells if c in "krcsdf") == s.fired
        assert sum(1 for c in cells if c in "BGPCD") == sum(s.cuts.values())
    assert [len(f) for f in data["fired"]] == [len(t.fired) for t in stats.turns]
    rows = [a for t, a in p.tags if t == "tr" and "data-entry" in a]
    assert [a["data-entry"] for a in rows] == [s.info.key for s in stats.entries]


def test_element_count_does_not_grow_with_turns() -> None:
    """The page for 40x as many turns has exactly as many elements: the heat map is a canvas
    and the bars two paths; only the entry table grows, with the entries."""
    book = make_book(entries=30)
    short = _parse(render_html(_stats(book, make_chat(messages=20))))
    long = _parse(render_html(_stats(book, make_chat(messages=800))))
    assert len(long.tags) == len(short.tags)
    assert len(short.tags) < 30 * 12 + 120


def test_script_cannot_be_closed_by_entry_text() -> None:
    book = Book.from_json(
        "x", {"entries": {"0": dict(Entry.new(0, key=["a"], comment="</script><b>x").data)}}
    )
    page = render_html(_stats(book, [Message(name="U", mes="a", is_user=True)]))
    assert page.count("</script>") == 2
    assert "&lt;/script&gt;&lt;b&gt;x" in page


def test_atomic_write_replaces_a_file_and_refuses_others(tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o640)
    write_text_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]
    with pytest.raises(OutputError, match="is a directory; refusing to replace it"):
        write_text_atomic(tmp_path, "x")
    with pytest.raises(OutputError, match="missing"):
        write_text_atomic(tmp_path / "missing" / "r.html", "x")
    # FIFOs and devices are written through, as for every output (tests/test_output_files.py)


def test_replay_and_explain_write_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book, chat = str(example("emberfall.json")), str(example("emberfall-chat.json"))
    out = tmp_path / "replay.html"
    assert main(["replay", book, "--chat", chat, "--recursive", "--html", str(out)]) == 0
    assert 'id="entries"' in out.read_text(encoding="utf-8")
    one = tmp_path / "explain.html"
    assert (
        main(["explain", book, "--chat", chat, "--recursive", "--seed", "1", "--html", str(one)])
        == 0
    )
    data = json.loads(_parse(one.read_text(encoding="utf-8")).data["data"])
    assert len(data["turns"]) == 1
    capsys.readouterr()
    assert (
        main(["explain", book, "--chat", chat, "--recursive", "--seed", "1", "--format", "json"])
        == 0
    )
    activated = json.loads(capsys.readouterr().out)["activated"]
    assert [e[0] for e in data["fired"][0]] == [
        [k for k, _ in data["entries"]].index(f"{a['world']}.{a['uid']}") for a in activated
    ]
    assert main(["explain", book, "--html", str(tmp_path)]) == 1
    assert "is a directory; refusing to replace it" in capsys.readouterr().err


def _evidence_book() -> Book:
    entries = {
        "0": Entry.new(0, key=["hello"], comment="every turn", content="greets; mentions tower"),
        "1": Entry.new(1, key=["zzz-never"], comment="never"),
        "2": Entry.new(2, key=["tower"], comment="via recursion", content="a tower"),
        "3": Entry.new(3, key=["tower"], comment="too big", content="word " * 3000, order=1),
        "4": Entry.new(4, constant=True, comment="constant", content="always"),
    }
    return Book.from_json("ev", {"entries": {k: dict(e.data) for k, e in entries.items()}})


def test_lint_chat_adds_evidence_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book = write_book(tmp_path / "ev.json", _evidence_book())
    msgs = [
        Message(name="U" if i % 2 else "B", mes="hello there", is_user=i % 2 == 1)
        for i in range(10)
    ]
    chat = write_chat(tmp_path / "chat.json", msgs)
    args = ["lint", str(book), "--chat", str(chat), "--recursive", "--format", "json"]
    main(args)
    found = {(f["uid"], f["code"]): f["message"] for f in json.loads(capsys.readouterr().out)}
    evidence = {k for k in found if k[1] in ("WI120", "WI121", "WI122", "WI123")}
    assert evidence == {(0, "WI121"), (1, "WI120"), (2, "WI121"), (2, "WI123"), (3, "WI122")}
    assert "fired in all 5 replayed turn(s) of 1 chat(s)" in found[(0, "WI121")]
    assert "never fired in 5 replayed turn(s)" in found[(1, "WI120")]
    assert "woken by ev.0 x5" in found[(2, "WI123")]
    assert "due in 5 of 5 replayed turn(s)" in found[(3, "WI122")]
    main(["lint", str(book), "--format", "json"])  # without chats: static findings only
    static = {f["code"] for f in json.loads(capsys.readouterr().out)}
    assert not static & {"WI120", "WI121", "WI122", "WI123"}


def test_evidence_codes_are_apart_from_the_static_codes() -> None:
    from worldinfo.lint import CODES
    from worldinfo.lint.evidence import EVIDENCE_CODES

    assert not set(EVIDENCE_CODES) & set(CODES)


def test_html_dash_goes_to_stdout_and_report_to_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    book, chat = str(example("emberfall.json")), str(example("emberfall-chat.json"))
    monkeypatch.chdir(tmp_path)
    assert main(["replay", book, "--chat", chat, "--json", "--html", "-"]) == 0
    out, err = capsys.readouterr()
    assert 'id="entries"' in out and out.lstrip().lower().startswith("<!doctype html")
    assert len(json.loads(err)["turns"]) >= 1
    assert main(["explain", book, "--chat", chat, "--seed", "1", "--json", "--html", "-"]) == 0
    out, err = capsys.readouterr()
    assert 'id="entries"' in out and "activated" in json.loads(err)
    assert list(tmp_path.iterdir()) == []  # no file named "-"
