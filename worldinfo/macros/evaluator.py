"""``evaluate``: SillyTavern 1.15.0's legacy ``substituteParams`` / ``evaluateMacros`` (M0-M2).

A fixed list of passes runs over the whole text one after another; each sees the output
of the ones before and never its own (M2.1). Pure: the context is read, the variables
come back in the result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType

from worldinfo import _js
from worldinfo._js import JSError, JSONValue
from worldinfo._record import record
from worldinfo.macros import builtins, chance, chat_state, clock
from worldinfo.macros.context import MacroContext, MacroSettings, MacroState
from worldinfo.macros.env import ENV_KEYS, EnvValue, environment
from worldinfo.macros.run import WI_CALL, Call, Frame, MacroError, Pass, Run
from worldinfo.macros.scan import LazyPattern, TooLong, re_sub
from worldinfo.macros.variables import variable_passes

DEFAULT_SETTINGS = MacroSettings()
MAX_DEPTH = 4
"""Nested evaluations (card fields, the example separator) deeper than this are not made."""

_PRE: tuple[Pass, ...] = (
    *builtins.angle_passes(
        lambda run: run.frame.user, lambda run: run.frame.char, lambda run: run.frame.group
    ),
    chance.ROLL,
    *builtins.instruct_passes(lambda run: run.frame.card_system),
    *variable_passes(),
    *builtins.utility_passes(),
)
_POST: tuple[Pass, ...] = (
    builtins.MAX_PROMPT,
    *chat_state.CHAT_PASSES,
    builtins.REVERSE,
    builtins.COMMENT,
    *clock.TIME_PASSES,
    chat_state.IDLE,
    clock.TIME_UTC,
    chat_state.OUTLET,
    clock.TIME_DIFF,
    builtins.BANNED,
    chance.RANDOM,
)
_ENV_MARKERS: Mapping[str, str] = MappingProxyType({k: "{{" + k.lower() + "}}" for k in ENV_KEYS})
_ENV_PATTERNS: Mapping[str, LazyPattern] = MappingProxyType(
    {
        key: LazyPattern(r"\{\{" + re.escape(key) + r"\}\}", re.IGNORECASE | re.ASCII)
        for key in ENV_KEYS
    }
)


class MacroTypeError(JSError):
    """Truthy content that is not a string: SillyTavern throws a TypeError (M0.3). ``state``
    holds the variables as the environment left them (card fields were evaluated first)."""

    def __init__(self, message: str, *, state: MacroState) -> None:
        super().__init__(message)
        self.state = state


@record
class Evaluation:
    """The result of one evaluation.

    Args:
        output: the substituted text.
        state: the variables and ``chat_id_hash`` afterwards.
        banned_words: texts ``{{banned}}`` added to the next request's banned strings.
        caught_errors: sources of passes that threw (or hit a limit) and were undone.
    """

    output: str
    state: MacroState
    banned_words: tuple[str, ...] = ()
    caught_errors: tuple[str, ...] = ()


def _env_apply(key: str, value: EnvValue) -> Callable[[Run, str], str]:
    pattern = _ENV_PATTERNS[key]

    def apply(run: Run, text: str) -> str:
        limit = run.settings.max_output
        if isinstance(value, str):
            return re_sub(pattern(), text, lambda _m: value, limit=limit)
        return re_sub(pattern(), text, lambda _m: value(), limit=limit)

    return apply


class _Text:
    """The text being substituted and its lower-case twin (for the pass markers)."""

    __slots__ = ("low", "value")

    def __init__(self, value: str) -> None:
        self.value = value
        self.low = value.lower()  # markers are ASCII: lower() never hides one (re.ASCII)

    def done(self, *, angle: bool) -> bool:
        """M2.6: nothing left to do for this and every later pass."""
        return not self.value or (not angle and "{{" not in self.value)

    def run(self, run: Run, source: str, apply: Callable[[Run, str], str]) -> None:
        """Apply one pass; a pass that throws or exceeds the size limit is undone (M2.7)."""
        try:
            new = apply(run, self.value)
        except (MacroError, TooLong):
            run.caught.append(source)
            return
        if len(new) > run.settings.max_output:
            run.caught.append(source)
        elif new != self.value:
            self.value, self.low = new, new.lower()


def _evaluate_macros(run: Run, content: str, env: dict[str, EnvValue]) -> str:
    """``evaluateMacros``: every pass in order over the whole text (M2.1-M2.7)."""
    chance.chat_id_hash(run)
    text = _Text(content)
    for p in _PRE:
        if text.done(angle=p.angle):
            return text.value
        if p.marker in text.low:
            text.run(run, p.source, p.apply)
    for key, value in env.items():
        if text.done(angle=False):
            return text.value
        if _ENV_MARKERS[key] in text.low:
            text.run(run, "{{" + key + "}}", _env_apply(key, value))
    for p in (*_POST, chance.pick_pass(content)):
        if text.done(angle=False):
            return text.value
        if p.marker in text.low:
            text.run(run, p.source, p.apply)
    return text.value


def substitute_params(run: Run, content: JSONValue, call: Call) -> str:
    """``substituteParams`` (legacy): the environment, then ``evaluateMacros`` (M0.3, §1)."""
    if not _js.truthy(content):
        return ""
    if run.depth > MAX_DEPTH:
        return content if isinstance(content, str) else ""
    run.depth += 1
    outer = run.frame
    try:
        env = environment(run, call)
        if not isinstance(content, str):
            chance.chat_id_hash(run)  # evaluateMacros computes it before touching the text
            raise JSError("content.includes is not a function")
        if _js.utf16_len(content) > run.settings.max_input:
            run.caught.append("max_input")
            return content
        run.frame = Frame(
            user=_js.to_string(env["user"]),
            char=_js.to_string(env["char"]),
            group=_js.to_string(env["group"]),
            card_system=_js.to_string(env.get("charPrompt", "")),
        )
        return _evaluate_macros(run, content, env)
    finally:
        run.frame = outer
        run.depth -= 1


def evaluate(
    content: JSONValue,
    *,
    context: MacroContext,
    state: MacroState,
    settings: MacroSettings = DEFAULT_SETTINGS,
    call: Call = WI_CALL,
) -> Evaluation:
    """Evaluate SillyTavern's macros in ``content`` as ``substituteParams`` does.

    Args:
        content: the raw value (a falsy value gives ``""``).
        context: everything the macros read.
        state: the variables before the call.
        settings: limits and the trust switch.
        call: the call's options (World Info passes none).

    Returns:
        The text and the variables afterwards.

    Raises:
        MacroTypeError: ``content`` is truthy but not a string (SillyTavern throws a
            TypeError); a ``JSError`` carrying the variables at that point.
    """
    run = Run(ctx=context, settings=settings, state=state, substitute=substitute_params)
    try:
        output = substitute_params(run, content, call)
    except JSError as exc:
        raise MacroTypeError(str(exc), state=run.result_state()) from exc
    return Evaluation(
        output=output,
        state=run.result_state(),
        banned_words=tuple(run.banned),
        caught_errors=tuple(run.caught),
    )
