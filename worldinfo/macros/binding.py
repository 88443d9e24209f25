"""From a ``Session``'s state to the evaluator's inputs: the context of one generation and
the variables carried in ``chat_metadata`` (``variables``, ``chat_id_hash``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from worldinfo._js import JSONValue
from worldinfo._record import replace
from worldinfo.macros.context import Card, MacroContext, MacroState
from worldinfo.types import Character, Message, Persona

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import overload
else:
    from worldinfo._lazy import overload


def card_of(character: Character | None, template: MacroContext) -> Card | None:
    """The card the macros read: the template's when the front-end gave one, else the
    fields ``Character`` carries."""
    if character is None:
        return None
    if template.character is not None:
        return template.character
    return card_from(character)


def card_from(character: Character) -> Card:
    """The card fields a ``Character`` carries (the others stay empty)."""
    return Card(
        name=character.name,
        avatar=character.avatar,
        description=character.description,
        personality=character.personality,
        scenario=character.scenario,
        depth_prompt=character.depth_prompt,
        creator_notes=character.creator_notes,
    )


def message_json(m: Message) -> dict[str, JSONValue]:
    """A chat message as the chat-state macros read it."""
    return {"name": m.name, "mes": m.mes, "is_user": m.is_user, "is_system": m.is_system}


class ChatView(Sequence[Mapping[str, JSONValue]]):
    """The chat as the chat-state macros read it, each message converted when it is read.

    A generation reads a few of the newest messages; converting every message for every
    generation made a long chat cost O(chat) per turn (O(chat²) over a replay).
    """

    __slots__ = ("_messages",)

    def __init__(self, messages: Sequence[Message]) -> None:
        self._messages = tuple(messages)  # a snapshot: the session's chat grows later

    def __len__(self) -> int:
        return len(self._messages)

    @overload
    def __getitem__(self, index: int) -> Mapping[str, JSONValue]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Mapping[str, JSONValue]]: ...

    def __getitem__(
        self, index: int | slice
    ) -> Mapping[str, JSONValue] | Sequence[Mapping[str, JSONValue]]:
        if isinstance(index, slice):
            return tuple(message_json(m) for m in self._messages[index])
        return message_json(self._messages[index])


def generation_context(
    template: MacroContext,
    *,
    persona: Persona,
    character: Character | None,
    chat: Sequence[Message],
    chat_metadata: Mapping[str, JSONValue],
    generation_type: str,
    outlets: Mapping[str, tuple[str, ...]],
    math_random: Callable[[], float],
    max_context: int,
) -> MacroContext:
    """The context of one generation: ``template`` (clock, zone, UI state, settings) with the
    session's names, card, chat, metadata, previous outlets and ``Math.random``."""
    return replace(
        template,
        user=persona.name,
        char=character.name if character is not None else "",
        character=card_of(character, template),
        persona_description=persona.description,
        chat=ChatView(chat),
        chat_metadata=chat_metadata,
        generation_type=generation_type,
        outlets={k: "\n".join(v) for k, v in outlets.items()} or template.outlets,
        math_random=math_random,
        max_context=max_context,
    )


def state_of(
    chat_metadata: Mapping[str, JSONValue], globals_: Mapping[str, JSONValue]
) -> MacroState:
    """The variables stored in ``chat_metadata`` and the global ones."""
    local = chat_metadata.get("variables")
    return MacroState(
        local=local if isinstance(local, dict) else None,
        globals=globals_,
        chat_id_hash=chat_metadata.get("chat_id_hash"),
    )


def write_back(state: MacroState, chat_metadata: dict[str, JSONValue]) -> None:
    """Store the variables and ``chat_id_hash`` into ``chat_metadata`` as SillyTavern does."""
    if state.local is not None:
        chat_metadata["variables"] = dict(state.local)
    if state.chat_id_hash is not None:
        chat_metadata["chat_id_hash"] = state.chat_id_hash
