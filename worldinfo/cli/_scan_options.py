"""The options every scanning command shares, and the ``Settings`` and ``Limits`` they give.

``add_scan_options`` adds the chat, the settings file and flags, the context size, the
generation type, the user name, the seed, ``--untrusted``, ``--limit`` and the clock;
``settings_from`` and ``limits_from`` read them back.
"""

from __future__ import annotations

import argparse

from worldinfo._js import JSONValue
from worldinfo._record import replace
from worldinfo.cli._clock import add_clock_options
from worldinfo.cli._settings import (
    add_switch,
    defaults_help,
    flag_type,
    int_range,
    read_settings_file,
)
from worldinfo.types import GENERATION_TYPES, Settings

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from worldinfo.importers import Limits

SETTING_FLAGS = (
    "depth",
    "budget",
    "budget_cap",
    "min_activations",
    "min_activations_depth_max",
    "max_recursion_steps",
    "character_strategy",
)
SWITCHES = ("recursive", "case_sensitive", "match_whole_words", "use_group_scoring")
_FLAG_HELP = {
    "depth": "messages scanned, newest first",
    "budget": "token budget in %% of --max-context",
    "budget_cap": "absolute token cap of the budget (0 = none)",
    "min_activations": "widen the scan until this many entries are active (0 = off)",
    "min_activations_depth_max": "deepest widening for --min-activations (0 = chat length)",
    "max_recursion_steps": "most scan passes (0 = unlimited)",
    "character_strategy": "how character and global books merge: evenly (0), "
    "character_first (1) or global_first (2)",
    "recursive": "scan activated entries' content for more keys",
    "case_sensitive": "match keys case-sensitively",
    "match_whole_words": "match keys as whole words",
    "use_group_scoring": "inclusion groups pick by key-match score",
}


def _limit_setting(text: str) -> str:
    from worldinfo.importers import Limits

    try:
        Limits.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_limit_option(p: argparse.ArgumentParser) -> None:
    """``--limit NAME=N`` (repeatable): change one of the input bounds ``importers.Limits``."""
    p.add_argument(
        "--limit",
        action="append",
        default=[],
        type=_limit_setting,
        metavar="NAME=N",
        help="change an input bound, e.g. max_book_entries=100000 (see importers.Limits)",
    )


def limits_from(args: argparse.Namespace) -> Limits:
    """The ``importers.Limits`` the ``--limit`` options ask for."""
    from worldinfo.importers import Limits

    return Limits.parse(",".join(getattr(args, "limit", None) or ()))


def add_scan_options(p: argparse.ArgumentParser) -> None:
    """Options shared by ``scan``, ``explain`` and ``demo``: chat, settings, scan type."""
    p.add_argument(
        "--chat",
        metavar="CHAT",
        help="SillyTavern .jsonl chat or a JSON list of messages; - reads stdin",
    )
    p.add_argument(
        "--settings",
        metavar="JSON",
        help="World Info settings: our names or SillyTavern's settings.json (or its "
        "world_info_settings object); - reads stdin (default: SillyTavern's defaults)",
    )
    for name in SETTING_FLAGS:
        metavar = "{evenly,character_first,global_first}" if name == "character_strategy" else "N"
        p.add_argument(
            f"--{name.replace('_', '-')}",
            type=flag_type(name),
            dest=name,
            default=None,
            metavar=metavar,
            help=f"{_FLAG_HELP[name]} {defaults_help(name)}",
        )
    for name in SWITCHES:
        add_switch(p, name, what=_FLAG_HELP[name])
    p.add_argument(
        "--max-context", type=int_range(0), default=8192, metavar="N", help="context size in tokens"
    )
    p.add_argument("--type", default="normal", choices=GENERATION_TYPES, help="generation type")
    p.add_argument("--user", default="User", help="the {{user}} name")
    p.add_argument(
        "--seed",
        type=int_range(0, 2**32 - 1),
        default=None,
        help="seed for probability rolls (default: not set, a random seed)",
    )
    p.add_argument(
        "--untrusted",
        action="store_true",
        help="imported entries are untrusted: no constant, @@activate, sticky, ignoreBudget, "
        "system role at depth 0, regex or catch-all keys (worldinfo.trust.TrustPolicy), "
        "and their {{setvar}}-family macros store no variables",
    )
    add_limit_option(p)
    add_clock_options(p)  # --now, --tz: what the macro evaluator's time macros see


def settings_from(
    args: argparse.Namespace, *, from_file: dict[str, JSONValue] | None = None
) -> Settings:
    """The settings file (if any; ``from_file`` when already read) overridden by flags.

    Raises:
        UsageError: the settings file has an unknown key or a wrongly typed value.
    """
    if from_file is None:
        from_file = read_settings_file(args.settings) if getattr(args, "settings", None) else {}
    values = dict(from_file)
    values.update(
        {
            k: getattr(args, k)
            for k in (*SETTING_FLAGS, *SWITCHES, "include_names")
            if getattr(args, k, None) is not None
        }
    )
    return replace(Settings(), **values)
