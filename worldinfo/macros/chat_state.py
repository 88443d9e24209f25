"""Chat-state macros (M9): last messages and ids, swipes, ``{{idle_duration}}``, outlets."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo.macros.run import Pass, Run
from worldinfo.macros.scan import Groups, LazyPattern, lazy_to_close, re_sub, sub

Message = Mapping[str, JSONValue]


def _being_swiped(m: Message) -> bool:
    swipes = m.get("swipes")
    if not isinstance(swipes, list):
        return False
    return _js.ge(m.get("swipe_id", _js.UNDEFINED), len(swipes))


def last_index(chat: Sequence[Message], keep: Callable[[Message], bool]) -> int | None:
    """The index of the last message ``keep`` accepts, skipping one being swiped."""
    for i in range(len(chat) - 1, -1, -1):
        m = chat[i]
        if not _being_swiped(m) and keep(m):
            return i
    return None


def _any(_m: Message) -> bool:
    return True


def _user(m: Message) -> bool:
    return _js.truthy(m.get("is_user")) and not _js.truthy(m.get("is_system"))


def _char(m: Message) -> bool:
    return not _js.truthy(m.get("is_user")) and not _js.truthy(m.get("is_system"))


def _mes(run: Run, keep: Callable[[Message], bool]) -> str:
    i = last_index(run.ctx.chat, keep)
    if i is None:
        return ""
    mes = run.ctx.chat[i].get("mes", "")
    return "" if _js.nullish(mes) else _js.to_string(mes)


def _last_id(run: Run) -> str:
    i = last_index(run.ctx.chat, _any)
    return "" if i is None else str(i)


def _swipe_count(run: Run) -> str:
    chat = run.ctx.chat
    swipes = chat[-1].get("swipes") if chat else None
    return str(len(swipes)) if isinstance(swipes, list) else ""


def _current_swipe(run: Run) -> str:
    chat = run.ctx.chat
    swipe_id = chat[-1].get("swipe_id", _js.UNDEFINED) if chat else _js.UNDEFINED
    if swipe_id is None:
        return ""
    return _js.to_string(_js.add(swipe_id, 1))


def _first_included(run: Run) -> str:
    value = run.ctx.chat_metadata.get("lastInContextMessageId")
    return "" if _js.nullish(value) else _js.to_string(value)


def _first_displayed(run: Run) -> str:
    value = run.ctx.first_displayed_message_id
    return str(value) if value is not None and value >= 0 else ""


def idle_duration(run: Run) -> str:
    """``{{idle_duration}}``: time since the user's message before the last one (M9.4)."""
    from worldinfo.macros.moment import humanize, timestamp_to_moment  # only when used

    armed = False
    chosen: Message | None = None
    for m in reversed(run.ctx.chat):
        if _js.truthy(m.get("is_system")):
            continue
        if _js.truthy(m.get("is_user")) and armed:
            chosen = m
            break
        armed = True
    if chosen is None or not _js.truthy(chosen.get("send_date")):
        return "just now"
    then = timestamp_to_moment(chosen.get("send_date"), run.ctx.tz)
    if then is None:
        return "Invalid date"
    ms = (run.now() - then).total_seconds() * 1000
    return humanize(ms, with_suffix=False)


def _word(name: str, fn: Callable[[Run], str]) -> Pass:
    pattern = LazyPattern(r"\{\{" + name + r"\}\}", re.IGNORECASE | re.ASCII)

    def apply(run: Run, text: str) -> str:
        return re_sub(pattern(), text, lambda _m: fn(run), limit=run.settings.max_output)

    return Pass(source="{{" + name + "}}", apply=apply)


_OUTLET = LazyPattern(r"\{\{outlet::", re.IGNORECASE | re.ASCII)


def _outlet(run: Run, text: str) -> str:
    def one(_start: int, g: Groups) -> str:
        return run.ctx.outlets.get(_js.trim(g[0]), "")

    return sub(
        text, _OUTLET(), lazy_to_close(one_line=True, min_len=1), one, limit=run.settings.max_output
    )


CHAT_PASSES = (
    _word("lastMessage", lambda run: _mes(run, _any)),
    _word("lastMessageId", _last_id),
    _word("lastUserMessage", lambda run: _mes(run, _user)),
    _word("lastCharMessage", lambda run: _mes(run, _char)),
    _word("firstIncludedMessageId", _first_included),
    _word("firstDisplayedMessageId", _first_displayed),
    _word("lastSwipeId", _swipe_count),
    _word("currentSwipeId", _current_swipe),
)
IDLE = _word("idle_duration", idle_duration)
OUTLET = Pass(source="{{outlet::(.+?)}}", apply=_outlet)
