"""The sub-commands: each one's name, its module under ``worldinfo.cli`` and its help line.

Kept apart from the modules so that ``worldinfo --help`` (and a run of one command) can list
every command without importing the others' modules (start-up time). Each module's
``register`` reads its help line from here.
"""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str]] = {
    "scan": ("scan", "scan books/cards against a chat and print the prompt pieces"),
    "golden": ("golden", "run golden case files (files or folders)"),
    "demo": ("demo", "scan the bundled example book and chat, with the trace"),
    "import": (
        "importing",
        "convert a lorebook or card (any supported format) to a world file or card",
    ),
    "validate": ("importing", "check files; exit 1 and list problems if any is bad"),
    "memory": ("memory", "chat-history memory store (ingest, query, salvage)"),
    "explain": ("explain", "scan with a trace: why each entry did or did not activate"),
    "lint": ("lint", "check lorebooks for entries that never fire, always fire or misbehave"),
    "test": (
        "authortest",
        "run activation tests (*.witest.json): entries that must / must not fire",
    ),
    "replay": ("replay", "replay real chats: what each entry did on every turn"),
    "macros": (
        "macros",
        "evaluate SillyTavern's macros in a text ({{random}}, {{getvar}}, {{time}}, ...)",
    ),
    "serve": ("serve", "run the HTTP service (books prepared once, sessions in a database)"),
}
"""Command name -> (module under ``worldinfo.cli``, help line), in ``--help`` order."""


def help_of(name: str) -> str:
    """The help line of command ``name`` (what its parser is registered with)."""
    return COMMANDS[name][1]
