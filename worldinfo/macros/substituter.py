"""``StMacros``: the full evaluator as a ``Substitute`` callable, carrying the variables
between calls (the engine calls it for every key and content)."""

from __future__ import annotations

import re

from worldinfo._js import JSONValue
from worldinfo.macros.context import MacroContext, MacroSettings, MacroState
from worldinfo.macros.evaluator import DEFAULT_SETTINGS, MacroTypeError, evaluate
from worldinfo.macros.names import may_have_macros
from worldinfo.macros.run import WI_CALL, Call
from worldinfo.macros.scan import LazyPattern

CARD_FIELD_CALL = Call(replace_card=False)

_EFFECTFUL = LazyPattern(
    r"\{\{(?:(?:set|add|inc|dec)(?:global)?var|random|roll|pick|banned)", re.IGNORECASE
)


class StMacros:
    """SillyTavern's macros as a substituter: ``macros(text) -> str``.

    The evaluation itself is pure (``evaluate``); this object keeps the variables that
    come back from each call so that the next call sees them, as SillyTavern's globals do.

    Args:
        context: what the macros read (names, card, chat, clock, random sources, ...).
        state: the variables before the first call.
        settings: limits and the trust switch.
    """

    def __init__(
        self,
        context: MacroContext,
        *,
        state: MacroState | None = None,
        settings: MacroSettings = DEFAULT_SETTINGS,
    ) -> None:
        self.context = context
        self.state = state or MacroState()
        self.settings = settings
        self.banned_words: list[str] = []
        self.caught_errors: list[str] = []
        c = context.character
        fields = [context.persona_description]
        if c is not None:
            fields += [c.description, c.personality, c.scenario, c.mes_example, c.system_prompt]
            fields += [c.post_history_instructions, c.depth_prompt, c.creator_notes]
        md = context.chat_metadata
        fields += [
            v
            for v in (md.get(k) for k in ("scenario", "mes_example", "system_prompt"))
            if isinstance(v, str)
        ]
        self._quiet_fields = not any(_EFFECTFUL().search(f) for f in fields)
        self._primed = False
        """An evaluation has run: ``chat_id_hash`` is what every later one computes too
        (it may be 0, SillyTavern's hash of a chat without an id, which is recomputed)."""

    @property
    def identity_without_braces(self) -> bool:
        """True when no card field can change anything (no variable writes, random draws,
        dice or banned words in them): a text without ``{{`` is then returned unchanged
        and calling for it has no effect besides ``chat_id_hash`` (set by ``prime``)."""
        return self._quiet_fields

    def prime(self) -> None:
        """Compute and store ``chat_id_hash`` as the first evaluation of a generation would."""
        self("{{noop}}")

    def __call__(self, value: JSONValue) -> str:
        """Evaluate ``value`` as World Info calls ``substituteParams``; the variables are
        kept for the next call."""
        if (
            self._primed
            and self._quiet_fields
            and isinstance(value, str)
            and not may_have_macros(value)
        ):
            return value  # nothing to replace, no card field can have an effect, hash stored
        return self._run(value, WI_CALL)

    def card_field(self, value: JSONValue) -> str:
        """Evaluate a card field as ``baseChatReplace`` does (no card macros, M1.1)."""
        return self._run(value, CARD_FIELD_CALL)

    def _run(self, value: JSONValue, call: Call) -> str:
        try:
            result = evaluate(
                value, context=self.context, state=self.state, settings=self.settings, call=call
            )
        except MacroTypeError as exc:
            self.state = exc.state  # what happened before the throw stays, as in SillyTavern
            raise
        self.state = result.state
        self._primed = True
        self.banned_words.extend(result.banned_words)
        self.caught_errors.extend(result.caught_errors)
        return result.output
