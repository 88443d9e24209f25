"""SillyTavern chat files (``.jsonl``) and TavernAI's legacy JSON chats."""

from __future__ import annotations

from collections.abc import Mapping

from worldinfo import Message
from worldinfo._record import record
from worldinfo.importers.errors import Problem, Reject, reject
from worldinfo.importers.jsonread import decode_text, load_json
from worldinfo.importers.limits import Limits, check_count
from worldinfo.importers.schema import iter_schema_problems
from worldinfo.interchange import JSONValue, to_string, truthy


@record
class ChatRead:
    """A chat: its header, ``chat_metadata`` and the messages in file order."""

    header: dict[str, JSONValue]
    metadata: dict[str, JSONValue]
    messages: tuple[Message, ...]


def is_chat_header(obj: JSONValue) -> bool:
    """True for a SillyTavern chat header line (``user_name`` or ``character_name``)."""
    return isinstance(obj, dict) and ("user_name" in obj or "character_name" in obj)


def _mes(v: JSONValue) -> str:
    if isinstance(v, dict) and "message" in v:  # Chub exports: {message: ...}
        v = v["message"]
    if v is None:
        return ""
    return v if isinstance(v, str) else to_string(v)


def message_from(obj: Mapping[str, JSONValue]) -> Message:
    """A ``Message`` from one stored message object (loose values coerced)."""
    name = obj.get("name")
    return Message(
        name=name if isinstance(name, str) else to_string(name) if name is not None else "",
        mes=_mes(obj.get("mes")),
        is_user=truthy(obj.get("is_user")),
        is_system=truthy(obj.get("is_system")),
    )


def read_jsonl(raw: bytes, *, limits: Limits) -> ChatRead:
    """Read a ``.jsonl`` chat: line 1 is the header, the others are messages.

    SillyTavern's reader skips lines that do not parse; so does this one, except the
    header, which must be an object with ``user_name`` (or ``character_name``).

    Raises:
        Reject: on a bad header, a ``chat_metadata`` that is not an object, or too many lines.
    """
    text = decode_text(raw)
    lines = text.split("\n")
    check_count(len(lines), limit="max_chat_lines", limits=limits, what="chat lines", where="$")
    bounds = limits.json_bounds
    header = load_json(lines[0], bounds=bounds, where="$.0")
    if not is_chat_header(header):
        raise reject("$.0", "chat header must be an object with user_name or character_name")
    header_problems = list(iter_schema_problems("st-chat", header, where="$.0"))
    if header_problems:
        raise Reject(header_problems)
    meta = header.get("chat_metadata", {})
    if not isinstance(meta, dict):
        raise reject("$.0.chat_metadata", "must be an object")
    messages: list[Message] = []
    problems: list[Problem] = []
    for i, line in enumerate(lines[1:], start=1):
        if not line.strip():
            continue
        try:
            obj = load_json(line, bounds=bounds, where=f"$.{i}")
        except Reject as exc:
            if any("refused" in p.message for p in exc.problems):
                problems.extend(exc.problems)
            continue
        if isinstance(obj, dict):
            messages.append(message_from(obj))
    if problems:
        raise Reject(problems)
    return ChatRead(header=dict(header), metadata=dict(meta), messages=tuple(messages))


def read_legacy(items: list[JSONValue], *, limits: Limits) -> ChatRead:
    """TavernAI's pre-JSONL chat: an array of ``"Name: text"`` strings.

    The speaker is the text before the first ``": "``; there is no header, so no message
    is marked as the user's.

    Raises:
        Reject: when an item is not a string, or there are more than ``max_chat_lines``.
    """
    check_count(len(items), limit="max_chat_lines", limits=limits, what="chat lines", where="$")
    messages = []
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise reject(f"$.{i}", "legacy chat lines must be strings")
        name, sep, mes = item.partition(": ")
        messages.append(Message(name=name if sep else "", mes=mes if sep else item))
    return ChatRead(header={}, metadata={}, messages=tuple(messages))
