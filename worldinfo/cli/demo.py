"""``worldinfo demo``: a bundled example book and chat, scanned and explained. No arguments."""

from __future__ import annotations

import argparse

from worldinfo.cli._commands import help_of
from worldinfo.cli._inputs import build_session, read_inputs
from worldinfo.cli.scan import render
from worldinfo.examples import path
from worldinfo.explain import render_trace


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``demo`` sub-command."""
    p = sub.add_parser(
        "demo",
        help=help_of("demo"),
        description="Scan the bundled example book (worldinfo/examples/emberfall.json) against "
        "its chat with recursion on and explain every decision. Takes no options.",
    )
    p.set_defaults(func=run)


def run(_args: argparse.Namespace) -> int:
    """Scan the example and print the prompt pieces and why each entry fired or not."""
    book, chat = path("emberfall.json"), path("emberfall-chat.json")
    inputs = read_inputs([str(book)], chat=str(chat))
    opts = argparse.Namespace(
        settings=None, recursive=True, depth=4, max_context=8192, user="User", seed=7
    )
    session = build_session(inputs, opts)
    result = session.generate("normal", trace=True)
    print(f"Book: {book.name} ({len(inputs.books['emberfall'].entries or ())} entries)")
    print(f"Chat: {chat.name} ({len(inputs.chat)} messages), depth 4, recursion on\n")
    print(render(result))
    print(render_trace(result, books=inputs.books))
    print("Try: worldinfo scan BOOK.json --chat CHAT.jsonl  (or --json for everything)")
    return 0
