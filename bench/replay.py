"""Replay speed: 2,000 turns of a generated chat against a big book, and the report's size.

Measured in one run, side by side: the replay (every turn traced and recorded), the same
turns scanned without a trace (what a front-end does), and rendering the HTML report. The
chat is generated from the book's own keys (about a third of the messages name one), so
entries fire, recurse and get cut as in a real chat. The book is read, never copied.

    python bench/replay.py                      # the 550-entry Eldoria book in ../shared
    python bench/replay.py --book BOOK --turns 500 --html report.html
    python bench/replay.py --example docs/replay-example.html   # the README's screenshot
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: base runs
sys.path.append(str(Path(__file__).resolve().parent.parent / "tests"))

from replay_data import FILLER  # the test data's filler words (tests/ is on sys.path above)

from worldinfo import importers
from worldinfo._js import mulberry32, to_string
from worldinfo.replay import catalog, collect, replay_chat
from worldinfo.replay.html import render_html
from worldinfo.session import Session
from worldinfo.types import Book, Message, Settings

ELDORIA = (
    Path(__file__).resolve().parents[2]
    / "shared/corpus/st_world/eldoria-zh-v10.5.0-550-entries.json"
)


def chat_for(book: Book, *, turns: int, seed: int = 11) -> list[Message]:
    """``2 * turns`` messages (user, reply) naming the book's keys now and then."""
    rng = random.Random(seed)
    keys = [to_string(k) for e in book.entries or () for k in e.keys if to_string(k).strip()]
    keys = [k for k in keys if not k.startswith("/")] or ["nothing"]
    out = []
    for i in range(2 * turns):
        words = [rng.choice(FILLER) for _ in range(rng.randint(6, 30))]
        if rng.random() < 0.35:
            words.insert(rng.randrange(len(words)), rng.choice(keys))
        user = i % 2 == 0
        out.append(Message(name="User" if user else "Narrator", mes=" ".join(words), is_user=user))
    return out


def _session(book: Book, settings: Settings) -> Session:
    return Session(
        books={book.name: book}, global_books=[book.name], settings=settings, rng=mulberry32(1)
    )


def _browser(page: str) -> None:
    """Load the report and a one-turn report in headless Chromium, side by side."""
    import re
    import subprocess
    import tempfile

    small = render_html(collect([], []), title="empty")
    with tempfile.TemporaryDirectory() as tmp:
        times = []
        for name, text in (("report", page), ("empty", small)):
            f = Path(tmp) / f"{name}.html"
            f.write_text(text, encoding="utf-8")
            cmd = ["/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu"]
            cmd += [f"--user-data-dir={tmp}/p-{name}", "--no-first-run", "--dump-dom", f.as_uri()]
            t0 = time.perf_counter()
            dom = subprocess.run(
                cmd, capture_output=True, text=True, check=True, timeout=300
            ).stdout
            times.append(time.perf_counter() - t0)
            ready = 'data-ready="1"' in dom
            ms = re.search(r'data-render-ms="(\d+)"', dom)
            elements = len(re.findall(r"<[a-zA-Z]", dom))
            print(
                f"chromium {name:7}: {times[-1]:5.2f} s to load and dump, {elements} elements, "
                f"ready={ready}, script {ms.group(1) if ms else '?'} ms"
            )
        print(f"chromium report / empty page = {times[0] / times[1]:.2f}")


def run(book: Book, *, turns: int, settings: Settings, html: Path | None, browser: bool) -> None:
    chat = chat_for(book, turns=turns)
    print(f"book {book.name!r}: {len(book.entries or ())} entries; chat {len(chat)} messages")
    print(f"python {platform.python_version()} on {platform.machine()}")

    s = _session(book, settings)
    t0, c0 = time.perf_counter(), time.process_time()
    records = replay_chat(s, chat, chat="generated")
    replay_s, replay_cpu = time.perf_counter() - t0, time.process_time() - c0
    stats = collect(records, catalog(s.books, s.selection_names()))

    plain = _session(book, settings)
    t0, c0 = time.perf_counter(), time.process_time()
    for rec in records:
        plain.append(chat[len(plain.chat) : rec.message])
        plain.generate(rec.type)
    plain_s, plain_cpu = time.perf_counter() - t0, time.process_time() - c0

    t0 = time.perf_counter()
    page = render_html(stats, title=f"replay: {book.name}")
    html_s = time.perf_counter() - t0
    fired = sum(len(t.fired) for t in records)
    print(f"turns replayed:        {len(records)} ({fired} firings, {stats.overflows} overflows)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average at the end: {load:.1f} on {os.cpu_count()} CPU(s)")
    print(
        f"replay (traced):       {replay_s:7.2f} s wall, {replay_cpu:6.2f} s CPU "
        f"({1000 * replay_s / len(records):.1f} ms/turn)"
    )
    print(
        f"plain scans, no trace: {plain_s:7.2f} s wall, {plain_cpu:6.2f} s CPU "
        f"(replay / plain = {replay_s / plain_s:.2f} wall, {replay_cpu / plain_cpu:.2f} CPU)"
    )
    print(f"HTML report:           {html_s:7.2f} s  {len(page) / 1e6:.2f} MB")
    if html is not None:
        html.write_text(page, encoding="utf-8")
        print(f"wrote {html}")
    if browser:
        _browser(page)


def example(out: Path) -> None:
    """The README screenshot's page: the bundled example book and a generated chat."""
    from replay_data import make_story_chat

    from worldinfo.examples import path

    book = importers.load(path("emberfall.json")).books[0]
    s = _session(book, Settings(recursive=True))
    stats = collect(
        replay_chat(s, make_story_chat(messages=60), chat="story"),
        catalog(s.books, s.selection_names()),
    )
    out.write_text(render_html(stats, title="worldinfo replay: emberfall.json"), encoding="utf-8")
    print(f"wrote {out}")


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--book", type=Path, default=ELDORIA)
    p.add_argument("--turns", type=int, default=2000)
    p.add_argument("--recursive", action="store_true", help="scan with recursion on")
    p.add_argument("--html", type=Path, help="also write the report here")
    p.add_argument("--example", type=Path, help="write the bundled example's report and stop")
    p.add_argument("--browser", action="store_true", help="also load the report in Chromium")
    args = p.parse_args()
    if args.example:
        example(args.example)
        return
    if not args.book.exists():
        sys.exit(f"{args.book}: not found (the Eldoria book lives in ../shared/corpus)")
    imported = importers.load(args.book)
    run(
        imported.books[0],
        turns=args.turns,
        settings=Settings(recursive=args.recursive),
        html=args.html,
        browser=args.browser,
    )


if __name__ == "__main__":
    main()
