"""The replay report in a real browser: headless Chromium (Debian's ``chromium``) loads it
from a local file; the rendered DOM must show the entries and counts, the page must log
nothing to the console, and a screenshot is kept in ``tests/artifacts/`` (a CI artefact)."""

from __future__ import annotations

import random
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from replay_data import make_story_chat

from worldinfo._js import mulberry32
from worldinfo.examples import path as example
from worldinfo.importers import load
from worldinfo.replay import (
    EntryInfo,
    Firing,
    ReplayStats,
    TurnRecord,
    catalog,
    collect,
    replay_chat,
)
from worldinfo.replay.html import render_html
from worldinfo.session import Session
from worldinfo.types import Settings

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
    "--hide-scrollbars",
)

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs headless Chromium at /usr/bin/chromium (apt-get install chromium)",
)


def _chromium(page: Path, tmp: Path, *extra: str) -> tuple[str, list[str]]:
    """Run Chromium on ``page``; return stdout and the console lines it logged."""
    proc = subprocess.run(
        [str(CHROMIUM), *FLAGS, f"--user-data-dir={tmp / 'profile'}", *extra, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.stdout, console


class _Dom(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements = 0
        self.by_id: dict[str, dict[str, str | None]] = {}
        self.rows: list[str] = []
        self.nodes: list[str] = []
        self.text: dict[str, str] = {}
        self._id = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements += 1
        a = dict(attrs)
        if a.get("id"):
            self.by_id[str(a["id"])] = a
        self._id = str(a.get("id") or "")
        if tag == "tr" and a.get("data-entry"):
            self.rows.append(str(a["data-entry"]))
        if tag == "g" and a.get("data-entry"):
            self.nodes.append(str(a["data-entry"]))

    def handle_endtag(self, tag: str) -> None:  # noqa: ARG002 (HTMLParser's signature)
        self._id = ""

    def handle_data(self, data: str) -> None:
        if self._id:
            self.text[self._id] = self.text.get(self._id, "") + data


def _dom(html: str) -> _Dom:
    d = _Dom()
    d.feed(html)
    return d


def _example_stats() -> ReplayStats:
    book = load(example("emberfall.json")).books[0]
    s = Session(
        books={book.name: book},
        global_books=[book.name],
        settings=Settings(recursive=True),
        rng=mulberry32(1),
    )
    chat = make_story_chat(messages=60)
    return collect(replay_chat(s, chat, chat="gen"), catalog(s.books, s.selection_names()))


def test_console_lines_are_seen(tmp_path: Path) -> None:
    """The console check can fail: a page that logs and throws is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text("<p>x</p><script>console.error('m1');throw new Error('m2')</script>")
    _, console = _chromium(bad, tmp_path, "--dump-dom")
    assert any("m1" in line for line in console)
    assert any("Uncaught Error: m2" in line for line in console)


def test_report_renders_in_chromium(tmp_path: Path) -> None:
    stats = _example_stats()
    page = tmp_path / "report.html"
    page.write_text(render_html(stats, title="emberfall replay"), encoding="utf-8")
    html, console = _chromium(page, tmp_path, "--dump-dom")
    assert console == []
    dom = _dom(html)
    assert dom.by_id["errors"].get("hidden") is not None and not dom.text.get("errors", "").strip()
    assert 'data-ready="1"' in html
    assert dom.rows == [s.info.key for s in stats.entries]
    turn = next(t for t in stats.turns if any(f.sources for f in t.fired))
    busiest = max(stats.turns, key=lambda t: sum(len(f.sources) for f in t.fired))
    assert sum(len(f.sources) for f in turn.fired) > 0
    assert dom.nodes == [f.key for f in busiest.fired]
    graph = dom.by_id["graph"]
    assert graph["data-edges"] == str(sum(len(f.sources) for f in busiest.fired))
    assert int(str(dom.by_id["heat"]["data-runs"])) > 0
    facts = {k: v for k, v in dom.text.items() if k.startswith("fact-")}
    assert facts["fact-turns-turns"] == str(len(stats.turns))
    assert facts["fact-never-fired"] == str(len(stats.never_fired))
    assert facts["fact-budget-overflows"] == str(stats.overflows)
    fired = re.findall(
        r'<tr class="[^"]*" data-entry="([^"]+)"><td[^>]*>[^<]*</td><td class="n" data-v="(\d+)"',
        html,
    )
    assert dict(fired) == {s.info.key: str(s.fired) for s in stats.entries}
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "replay-report.png"
    _chromium(page, tmp_path, "--window-size=1280,1300", f"--screenshot={shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_table_sorts_in_chromium(tmp_path: Path) -> None:
    """``#sort=-fired`` sorts the table as a click on "fired" twice would (stable: ties keep
    the book's order); ``#sort=entry`` sorts by name."""
    stats = _example_stats()
    page = tmp_path / "report.html"
    page.write_text(render_html(stats), encoding="utf-8")
    html, console = _chromium(page, tmp_path, "--dump-dom")  # no fragment: book order
    assert _dom(html).rows == [s.info.key for s in stats.entries]
    for fragment, expected in (
        ("#sort=-fired", sorted(stats.entries, key=lambda s: -s.fired)),
        ("#sort=tokens", sorted(stats.entries, key=lambda s: s.tokens)),
    ):
        url = page.as_uri() + fragment
        proc = subprocess.run(
            [str(CHROMIUM), *FLAGS, f"--user-data-dir={tmp_path / 'p2'}", "--dump-dom", url],
            capture_output=True,
            text=True,
            timeout=180,
            check=True,
        )
        assert _dom(proc.stdout).rows == [s.info.key for s in expected], fragment
    assert console == []


def _synthetic(turns: int, entries: int) -> ReplayStats:
    """Turn records for a big replay, made directly (no scans): about 5% of the entries fire
    per turn, some through recursion, some are cut."""
    rng = random.Random(5)
    infos = [
        EntryInfo(
            key=f"big.{i}",
            world="big",
            uid=str(i),
            title=f"Entry {i}",
            enabled=True,
            constant=False,
        )
        for i in range(entries)
    ]
    records = []
    for t in range(turns):
        picked = rng.sample(range(entries), entries // 20)
        fired = []
        for j, i in enumerate(picked):
            src = (f"big.{picked[0]}",) if j and rng.random() < 0.3 else ()
            fired.append(
                Firing(
                    key=f"big.{i}",
                    how="recursion" if src else "key",
                    loop=2 if src else 1,
                    tokens=40,
                    sources=src,
                )
            )
        cut = {f"big.{i}": "budget" for i in rng.sample(range(entries), 3) if i not in picked}
        records.append(
            TurnRecord(
                index=t,
                chat="big",
                message=2 * t + 1,
                type="normal",
                fired=tuple(fired),
                cut=cut,
                tokens=40 * len(fired),
                budget=1000,
                overflowed=bool(cut),
                loops=2,
            )
        )
    return collect(records, infos)


def test_big_report_stays_small_in_the_dom(tmp_path: Path) -> None:
    """2,000 turns x 550 entries: the rendered DOM has about 20 elements per entry and a few
    hundred besides, whatever the number of turns (the heat map is one canvas)."""
    stats = _synthetic(2000, 550)
    page = tmp_path / "big.html"
    page.write_text(render_html(stats), encoding="utf-8")
    html, console = _chromium(page, tmp_path, "--dump-dom")
    assert console == []
    dom = _dom(html)
    assert 'data-ready="1"' in html and not dom.text.get("errors", "").strip()
    assert len(dom.rows) == 550
    assert dom.elements < 550 * 12 + 2000
