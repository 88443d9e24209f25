"""``worldinfo macros TEXT``: evaluate SillyTavern's macros in a text, for authors."""

from __future__ import annotations

import argparse
import json
import random
import sys

from worldinfo._js import JSONValue, canonical, mulberry32
from worldinfo.cli._clock import ClockError, add_clock_options, clock_from
from worldinfo.cli._commands import help_of
from worldinfo.cli._inputs import InputError, read_chat, read_inputs
from worldinfo.macros import Card, MacroContext, evaluate
from worldinfo.macros.binding import card_from, message_json, state_of


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``macros`` sub-command."""
    p = sub.add_parser(
        "macros",
        help=help_of("macros"),
        description="Evaluates TEXT as SillyTavern 1.15.0 evaluates a World Info key or "
        "entry content (the legacy macro engine), with the card's fields and the chat's "
        "messages and variables. Variables set by the text are shown, never saved.",
    )
    p.add_argument("text", metavar="TEXT", help="the text (use - to read it from stdin)")
    p.add_argument("--card", metavar="CARD", help="character card: {{char}} and card fields")
    p.add_argument("--chat", metavar="CHAT", help="chat (.jsonl or JSON list): messages, variables")
    p.add_argument("--user", default="User", help="the {{user}} name (default: User)")
    p.add_argument(
        "--persona", default="", help="the persona description ({{persona}}) (default: empty)"
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed for {{random}} and {{roll}} (default: not set, a random seed)",
    )
    add_clock_options(p)
    p.add_argument("--json", action="store_true", help="print output and variables as JSON")
    p.set_defaults(func=run)


def _card(path: str | None) -> Card | None:
    if not path:
        return None
    character = read_inputs([path], chat=None).character
    if character is None:
        raise InputError(f"{path}: not a character card")
    return card_from(character)


def run(args: argparse.Namespace) -> int:
    """Evaluate the text; print the output (and with ``--json`` the variables)."""
    try:
        clock, tz = clock_from(args)
    except ClockError as exc:
        print(f"worldinfo macros: {exc}", file=sys.stderr)
        return 2
    try:
        card = _card(args.card)
        chat, metadata = read_chat(args.chat) if args.chat else ([], {})
    except InputError as exc:
        print(f"worldinfo macros: {exc}", file=sys.stderr)
        return 1
    text = sys.stdin.read() if args.text == "-" else args.text
    draw = mulberry32(args.seed) if args.seed is not None else random.Random().random
    context = MacroContext(
        user=args.user,
        char=card.name if card else "",
        character=card,
        persona_description=args.persona,
        chat=tuple(message_json(m) for m in chat),
        chat_metadata=metadata,
        clock=clock,
        tz=tz,
        random=draw,
        math_random=draw,
    )
    result = evaluate(text, context=context, state=state_of(metadata, {}))
    if not args.json:
        print(result.output)
        return 0
    out: dict[str, JSONValue] = {
        "output": result.output,
        "variables": canonical(dict(result.state.local or {})),
        "global_variables": canonical(dict(result.state.globals)),
        "chat_id_hash": result.state.chat_id_hash,
        "banned_words": list(result.banned_words),
        "caught_errors": list(result.caught_errors),
    }
    print(json.dumps(out, ensure_ascii=False, indent=1))
    return 0
