"""What the macro evaluator reads (``MacroContext``), the variables it changes
(``MacroState``) and its limits and trust switch (``MacroSettings``).

Everything SillyTavern reads from page globals is here as a value: names and card fields,
the chat and its metadata, the clock and time zone, the random sources, UI state. The
evaluator never reads anything else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, tzinfo

from worldinfo._js import JSONValue
from worldinfo._record import field, record

DEFAULT_SYSTEM_PROMPT = (
    "Write {{char}}'s next reply in a fictional chat between {{char}} and {{user}}."
)


@record
class Card:
    """The selected character's card fields (raw, as stored)."""

    name: str
    avatar: str = ""
    chat: str = ""
    description: str = ""
    personality: str = ""
    scenario: str = ""
    mes_example: str = ""
    system_prompt: str = ""
    post_history_instructions: str = ""
    character_version: str = ""
    depth_prompt: str = ""
    creator_notes: str = ""


@record
class Group:
    """A group chat: its chat id, members ``(name, avatar)`` and muted avatars."""

    chat_id: str
    members: tuple[tuple[str, str], ...] = ()
    disabled_members: tuple[str, ...] = ()


@record
class PowerUser:
    """The ``power_user`` settings the macros read (SillyTavern's defaults)."""

    collapse_newlines: bool = False
    prefer_character_prompt: bool = True
    prefer_character_jailbreak: bool = True
    sysprompt_enabled: bool = True
    sysprompt_content: str = DEFAULT_SYSTEM_PROMPT
    chat_start: str = "***"
    example_separator: str = "***"


def system_clock() -> datetime:
    """The device clock (UTC instant): what ``Session`` and the CLI use unless given one."""
    return datetime.now(UTC)


def _utc_zone() -> tzinfo:
    from zoneinfo import ZoneInfo  # only when no zone is given (start-up time)

    return ZoneInfo("UTC")


def _utc_epoch() -> datetime:
    return datetime.fromtimestamp(0, _utc_zone())


def _no_random() -> float:
    return 0.0


@record
class MacroContext:
    """Everything one evaluation reads.

    Args:
        user: the persona name (``name1``).
        char: the character name (``name2``).
        character: the selected character, or ``None``.
        persona_description: ``power_user.persona_description``.
        group: the open group chat, or ``None``.
        main_api: the connected API (``openai``, ``textgenerationwebui``, ...).
        model: the connected model name (``{{model}}``).
        max_context: ``{{maxPrompt}}``.
        input_box: the chat input box text (``{{input}}``).
        is_mobile: ``{{isMobile}}``.
        generation_type: ``{{lastGenerationType}}``.
        first_displayed_message_id: ``{{firstDisplayedMessageId}}`` (``None``: none shown).
        outlets: World Info outlet texts of the previous scan, by outlet name.
        power_user: the settings that change macros.
        chat: the chat messages as SillyTavern stores them (JSON objects), oldest first.
        chat_metadata: the chat's metadata as read (``variables`` come from ``MacroState``).
        clock: returns "now" (an aware ``datetime``); called when a time macro needs it.
        tz: the local time zone time macros format in.
        random: the uniform source of ``{{random}}`` (one draw per occurrence).
        math_random: ``Math.random`` for ``{{roll}}`` (one draw per die).
    """

    user: str = "User"
    char: str = ""
    character: Card | None = None
    persona_description: str = ""
    group: Group | None = None
    main_api: str = "openai"
    model: str = ""
    max_context: int = 8192
    input_box: str = ""
    is_mobile: bool = False
    generation_type: str = ""
    first_displayed_message_id: int | None = None
    outlets: Mapping[str, str] = field(default_factory=dict)
    power_user: PowerUser = PowerUser()
    chat: Sequence[Mapping[str, JSONValue]] = ()
    chat_metadata: Mapping[str, JSONValue] = field(default_factory=dict)
    clock: Callable[[], datetime] = _utc_epoch
    tz: tzinfo = field(default_factory=_utc_zone)
    random: Callable[[], float] = _no_random
    math_random: Callable[[], float] = _no_random


@record
class MacroState:
    """The variables macros read and write, as plain JSON values.

    Args:
        local: ``chat_metadata.variables`` (``None``: not created yet).
        globals: ``extension_settings.variables.global``.
        chat_id_hash: ``chat_metadata.chat_id_hash`` (``None``: absent).
    """

    local: Mapping[str, JSONValue] | None = None
    globals: Mapping[str, JSONValue] = field(default_factory=dict)
    chat_id_hash: JSONValue = None


@record
class MacroSettings:
    """Limits and the trust switch for macro side effects.

    Args:
        variable_writes: let ``{{setvar}}``/``{{addvar}}``/``{{incvar}}``/``{{decvar}}`` change
            the chat's variables (default ``True``: what SillyTavern does). With ``False`` they
            still produce their text, but nothing is stored.
        global_writes: the same for the ``*globalvar`` family (global variables outlive the
            chat; default ``True``, SillyTavern's behaviour).
        max_input: texts longer than this (UTF-16 units) are returned unevaluated.
        max_output: a pass whose result would be longer is undone, like a pass that throws.
        max_dice: dice one evaluation may roll in all; a ``{{roll}}`` that would go past it
            gives ``""`` (as an invalid formula).
        max_picks: ``{{pick}}`` macros one evaluation resolves (each seeds a generator); the
            ones past it give ``""``.
    """

    variable_writes: bool = True
    global_writes: bool = True
    max_input: int = 100_000
    max_output: int = 500_000
    max_dice: int = 10_000
    max_picks: int = 2_000
