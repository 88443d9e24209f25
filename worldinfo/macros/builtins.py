"""The built-in passes that are not variables, dice, chat state or time: legacy angle
macros (M3.1), instruct and system-prompt macros with instruct mode off (M5), the small
utilities (M4), comments and ``{{banned}}`` (M11)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from worldinfo.macros.run import Pass, Run
from worldinfo.macros.scan import Groups, LazyPattern, greedy_quoted, lazy_to_close, re_sub, sub

_FLAGS = re.IGNORECASE | re.ASCII

INSTRUCT_NAMES = (
    "instructStoryStringPrefix",
    "instructStoryStringSuffix",
    "instructInput|instructUserPrefix",
    "instructUserSuffix",
    "instructOutput|instructAssistantPrefix",
    "instructSeparator|instructAssistantSuffix",
    "instructSystemPrefix",
    "instructSystemSuffix",
    "instructFirstOutput|instructFirstAssistantPrefix",
    "instructLastOutput|instructLastAssistantPrefix",
    "instructStop",
    "instructUserFiller",
    "instructSystemInstructionPrefix",
    "instructFirstInput|instructFirstUserPrefix",
    "instructLastInput|instructLastUserPrefix",
)


def word(name: str, fn: Callable[[Run], str], *, angle: bool = False) -> Pass:
    """A pass replacing ``{{name}}`` (``<name>`` with ``angle``); ``name`` may be
    alternatives joined by ``|``."""
    source = f"<{name}>" if angle else "{{(" + name + ")}}"
    pattern = LazyPattern(r"<" + name + ">" if angle else r"\{\{(?:" + name + r")\}\}", _FLAGS)

    def apply(run: Run, text: str) -> str:
        return re_sub(pattern(), text, lambda _m: fn(run), limit=run.settings.max_output)

    alternatives = [a.lower() for a in name.split("|")]
    marker = f"<{alternatives[0]}>" if angle else "{{" + os.path.commonprefix(alternatives)
    return Pass(source=source, apply=apply, angle=angle, marker=marker)


def angle_passes(
    user: Callable[[Run], str], char: Callable[[Run], str], group: Callable[[Run], str]
) -> list[Pass]:
    """``<USER>``, ``<BOT>``, ``<CHAR>``, ``<CHARIFNOTGROUP>``, ``<GROUP>`` (M3.1)."""
    return [
        word("USER", user, angle=True),
        word("BOT", char, angle=True),
        word("CHAR", char, angle=True),
        word("CHARIFNOTGROUP", group, angle=True),
        word("GROUP", group, angle=True),
    ]


def _empty(_run: Run) -> str:
    return ""


def instruct_passes(card_system: Callable[[Run], str]) -> list[Pass]:
    """M5 with instruct mode off: instruct macros are empty; system prompt and context."""
    out = [word(name, _empty) for name in INSTRUCT_NAMES]

    def system_prompt(run: Run) -> str:
        p = run.ctx.power_user
        if not p.sysprompt_enabled:
            return ""
        card = card_system(run)
        return card if p.prefer_character_prompt and card else p.sysprompt_content

    def default_prompt(run: Run) -> str:
        p = run.ctx.power_user
        return p.sysprompt_content if p.sysprompt_enabled else ""

    out.append(word("systemPrompt", system_prompt))
    out.append(word("defaultSystemPrompt|instructSystem|instructSystemPrompt", default_prompt))
    out.append(word("chatSeparator", lambda run: run.ctx.power_user.example_separator))
    out.append(word("chatStart", lambda run: run.ctx.power_user.chat_start))
    return out


_TRIM = LazyPattern(r"\{\{trim\}\}", _FLAGS)


def _trim(_run: Run, text: str) -> str:
    """``(?:\\r?\\n)*{{trim}}(?:\\r?\\n)*`` without rescanning newline runs."""
    out: list[str] = []
    pos = 0
    for m in _TRIM().finditer(text):
        start = m.start()
        if start < pos:
            continue
        while start > pos and text[start - 1] == "\n":
            start -= 1
            if start > pos and text[start - 1] == "\r":
                start -= 1
        end = m.end()
        while True:
            if text.startswith("\n", end):
                end += 1
            elif text.startswith("\r\n", end):
                end += 2
            else:
                break
        out.append(text[pos:start])
        pos = end
    if not out:
        return text
    out.append(text[pos:])
    return "".join(out)


def utility_passes() -> list[Pass]:
    """``{{newline}}``, ``{{trim}}``, ``{{noop}}``, ``{{input}}`` (M4.1-M4.3)."""
    return [
        word("newline", lambda _run: "\n"),
        Pass(source="(?:\\r?\\n)*{{trim}}(?:\\r?\\n)*", apply=_trim, marker="{{trim}}"),
        word("noop", _empty),
        word("input", lambda run: run.ctx.input_box),
    ]


_REVERSE = LazyPattern(r"\{\{reverse:", _FLAGS)
_COMMENT = LazyPattern(r"\{\{//")
_BANNED = LazyPattern(r'\{\{banned "', _FLAGS)


def _reverse(run: Run, text: str) -> str:
    shape = lazy_to_close(one_line=True, min_len=1)
    return sub(text, _REVERSE(), shape, lambda _s, g: g[0][::-1], limit=run.settings.max_output)


def _comment(run: Run, text: str) -> str:
    shape = lazy_to_close(one_line=False, min_len=0)
    return sub(text, _COMMENT(), shape, lambda _s, _g: "", limit=run.settings.max_output)


def _banned(run: Run, text: str) -> str:
    def one(_start: int, g: Groups) -> str:
        if run.ctx.main_api == "textgenerationwebui":
            run.banned.append(g[0])
        return ""

    return sub(text, _BANNED(), greedy_quoted, one, limit=run.settings.max_output)


MAX_PROMPT = word("maxPrompt", lambda run: str(run.ctx.max_context))
REVERSE = Pass(source="{{reverse:(.+?)}}", apply=_reverse)
COMMENT = Pass(source="{{\\/\\/([\\s\\S]*?)}}", apply=_comment, marker="{{//")
BANNED = Pass(source='{{banned "(.*)"}}', apply=_banned)
