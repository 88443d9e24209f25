"""World Info settings from the command line: ``--settings FILE`` and the setting flags.

A settings file holds our names (``depth``, ``budget`` ...) or SillyTavern's own
(``world_info_depth`` ...), flat, or as SillyTavern's ``world_info_settings`` object, or as a
whole SillyTavern ``settings.json`` (every other top-level member of that file is ignored).
An unknown key or a value of the wrong type or range is a usage error naming the key and the
valid ones; the command line exits 2.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Mapping

from worldinfo._js import JSONValue, parse_json
from worldinfo._record import record
from worldinfo.cli._conventions import UsageError, cannot_read, read_input
from worldinfo.types import Settings, Strategy

ST_PREFIX = "world_info_"
ST_WRAPPER = "world_info_settings"
ST_IGNORED = ("world_info",)
"""SillyTavern keys accepted and ignored: ``world_info`` holds ``globalSelect``/``charLore``,
book selection that the command line's file arguments replace."""


@record
class Spec:
    """What one setting accepts: a boolean, or a whole number in ``[low, high]``."""

    boolean: bool = False
    low: int = 0
    high: int | None = None
    choices: tuple[int, ...] = ()

    def describe(self) -> str:
        """The accepted values in a few words."""
        if self.boolean:
            return "true or false"
        if self.choices:
            return " or ".join(map(str, self.choices))
        return f"a whole number {self.low}..{self.high}" if self.high else "a whole number >= 0"


_SWITCH = Spec(boolean=True)
SPECS: Mapping[str, Spec] = {
    "depth": Spec(high=1000),
    "min_activations": Spec(),
    "min_activations_depth_max": Spec(),
    "budget": Spec(high=100),
    "budget_cap": Spec(),
    "include_names": _SWITCH,
    "recursive": _SWITCH,
    "case_sensitive": _SWITCH,
    "match_whole_words": _SWITCH,
    "use_group_scoring": _SWITCH,
    "character_strategy": Spec(choices=tuple(int(s) for s in Strategy)),
    "max_recursion_steps": Spec(),
    "overflow_alert": _SWITCH,
}
"""Every World Info setting (``Settings`` field names) and the values it accepts."""

STRATEGY_NAMES = {s.name.lower(): int(s) for s in Strategy}


def _valid_keys() -> str:
    ours = ", ".join(SPECS)
    return f"valid: {ours} (or SillyTavern's names: world_info_depth, world_info_budget, ...)"


def _whole(value: JSONValue) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, int) or (math.isfinite(value) and value.is_integer())


def check_value(name: str, value: JSONValue, *, where: str) -> JSONValue:
    """``value`` if setting ``name`` accepts it (integral floats become ints).

    Raises:
        UsageError: naming ``where`` and what the setting accepts.
    """
    spec = SPECS[name]
    if spec.boolean:
        if isinstance(value, bool):
            return value
    elif _whole(value):
        assert isinstance(value, int | float)
        number = int(value)
        if spec.choices:
            if number in spec.choices:
                return number
        elif number >= spec.low and (spec.high is None or number <= spec.high):
            return number
    raise UsageError(f"{where}: {value!r} is not valid for {name!r}; expected {spec.describe()}")


def _our_name(key: str) -> str | None:
    if key in SPECS:
        return key
    if key.startswith(ST_PREFIX) and key[len(ST_PREFIX) :] in SPECS:
        return key[len(ST_PREFIX) :]
    return None


def settings_values(data: JSONValue, *, source: str) -> dict[str, JSONValue]:
    """The settings a parsed settings file sets, by ``Settings`` field name.

    Raises:
        UsageError: not an object, an unknown key, or a value of the wrong type or range.
    """
    if not isinstance(data, dict):
        raise UsageError(f"{source}: $: expected a JSON object of World Info settings")
    base = "$"
    if ST_WRAPPER in data:
        data, base = data[ST_WRAPPER], f"$.{ST_WRAPPER}"
        if not isinstance(data, dict):
            raise UsageError(f"{source}: {base}: expected an object")
    out: dict[str, JSONValue] = {}
    for key, value in data.items():
        name = _our_name(key)
        if name is None:
            if key in ST_IGNORED:
                continue
            raise UsageError(f"{source}: {base}.{key}: unknown setting {key!r}; {_valid_keys()}")
        if name in out:
            raise UsageError(f"{source}: {base}.{key}: {name!r} is given twice")
        out[name] = check_value(name, value, where=f"{source}: {base}.{key}")
    return out


def read_settings_file(path: str) -> dict[str, JSONValue]:
    """Read and check a settings file (``-`` is stdin).

    Raises:
        UsageError: the file cannot be read or parsed, or is not valid settings.
    """
    try:
        data = parse_json(read_input(path))
    except OSError as exc:
        raise UsageError(cannot_read(path, exc)) from exc
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{path}: not JSON ({exc})") from exc
    return settings_values(data, source=path)


def flag_type(name: str) -> Callable[[str], int]:
    """An argparse ``type`` for setting ``name``: a whole number in its range."""

    def convert(text: str) -> int:
        spec = SPECS[name]
        value = STRATEGY_NAMES.get(text) if spec.choices else None
        if value is None:
            try:
                value = int(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"{text!r}: expected {spec.describe()}") from None
        try:
            checked = check_value(name, value, where=f"--{name.replace('_', '-')}")
        except UsageError as exc:
            raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[1]) from None
        assert isinstance(checked, int)
        return checked

    convert.__name__ = name  # argparse names the type in its messages
    return convert


def int_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: a whole number in ``[low, high]``."""

    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            bounds = f"{low}..{high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"{value} is out of range ({bounds})")
        return value

    return convert


def add_switch(p: argparse.ArgumentParser, name: str, *, what: str) -> None:
    """Add the ``--NAME`` / ``--no-NAME`` pair for boolean setting ``name``.

    Args:
        p: the parser.
        name: the ``Settings`` field (``--match-whole-words`` for ``match_whole_words``).
        what: what turning it on does; the help adds the default. Left unset (``None``)
            when neither flag is given, so a settings file's value stands.
    """
    flag = name.replace("_", "-")
    p.add_argument(
        f"--{flag}",
        dest=name,
        action="store_true",
        default=None,
        help=f"{what} {defaults_help(name)}",
    )
    p.add_argument(f"--no-{flag}", dest=name, action="store_false")


def defaults_help(name: str) -> str:
    """``(default: N)``: the value a setting takes without the flag or a settings file."""
    value = getattr(Settings(), name)
    shown = str(value).lower() if isinstance(value, bool) else str(value)
    return f"(default: {shown}, or the --settings file's)"
