"""The environment of one call (spec section 1): card fields, names, group values, and
the registered macros, in SillyTavern's insertion order (which is the pass order)."""

from __future__ import annotations

import re
from collections.abc import Callable

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo._record import record
from worldinfo.macros.run import Call, Run
from worldinfo.macros.scan import LazyPattern

EnvValue = str | Callable[[], str]
ENV_KEYS = (
    "original",
    "charPrompt",
    "charJailbreak",
    "charInstruction",
    "description",
    "personality",
    "scenario",
    "persona",
    "mesExamples",
    "mesExamplesRaw",
    "charVersion",
    "char_version",
    "charDepthPrompt",
    "creatorNotes",
    "user",
    "char",
    "charIfNotGroup",
    "group",
    "groupNotMuted",
    "notChar",
    "model",
    "isMobile",
    "lastGenerationType",
)
"""Every environment key, in insertion order (section 1)."""
_START = LazyPattern("<START>", re.IGNORECASE)
_NEWLINES = LazyPattern(r"\n+")


@record
class CardFields:
    """``getCharacterCardFields`` after ``baseChatReplace`` (M1.1)."""

    system: str = ""
    jailbreak: str = ""
    version: str = ""
    depth_prompt: str = ""
    creator_notes: str = ""
    description: str = ""
    personality: str = ""
    scenario: str = ""
    mes_examples: str = ""
    persona: str = ""


def _base(run: Run, value: JSONValue) -> str:
    """``baseChatReplace``: trim, a nested evaluation without card macros, newline rules."""
    if not isinstance(value, str) or not value:
        return ""
    text = _js.trim(value)
    if "{{" in text or "<" in text:
        text = run.substitute(run, text, Call(replace_card=False))
    if run.ctx.power_user.collapse_newlines:
        text = _NEWLINES().sub("\n", text)
    return text.replace("\r", "")


def _first(*values: JSONValue) -> JSONValue:
    return next((v for v in values if _js.truthy(v)), "")


def card_fields(run: Run) -> CardFields:
    """Every card field, resolved eagerly as SillyTavern does on each call."""
    ctx = run.ctx
    persona = ctx.persona_description
    c = ctx.character
    if c is None:
        return CardFields(persona=_base(run, persona))
    md, p = ctx.chat_metadata, ctx.power_user
    system = ""
    if p.prefer_character_prompt:
        system = _base(
            run, _js.trim(_js.to_string(_first(md.get("system_prompt"), c.system_prompt)))
        )
    jailbreak = (
        _base(run, _js.trim(c.post_history_instructions)) if p.prefer_character_jailbreak else ""
    )
    return CardFields(
        system=system,
        jailbreak=jailbreak,
        version=c.character_version,
        depth_prompt=_base(run, c.depth_prompt),
        creator_notes=_base(run, c.creator_notes),
        description=_base(run, c.description),
        personality=_base(run, c.personality),
        scenario=_base(run, _first(md.get("scenario"), c.scenario)),
        mes_examples=_base(run, _first(md.get("mes_example"), c.mes_example)),
        persona=_base(run, persona),
    )


def mes_examples(run: Run, examples: str) -> str:
    """``{{mesExamples}}``: the examples parsed into blocks with their headings (M1.2)."""
    if not examples or examples == "<START>":
        return ""
    if not examples.startswith("<START>"):
        examples = "<START>\n" + _js.trim(examples)
    blocks = _START().split(examples)[1:]
    if run.ctx.main_api == "openai":
        heading = "<START>\n"
    else:
        sep = run.ctx.power_user.example_separator
        heading = run.substitute(run, sep, Call()) + "\n" if sep else ""
    return "".join(heading + _js.trim(b) + "\n" for b in blocks)


def user_name(run: Run, call: Call) -> str:
    """``{{user}}`` of a call (the override, else ``name1``)."""
    return call.name1 if call.name1 is not None else run.ctx.user


def char_name(run: Run, call: Call) -> str:
    """``{{char}}`` of a call (the override, else ``name2``)."""
    return call.name2 if call.name2 is not None else run.ctx.char


def group_value(run: Run, call: Call, *, muted: bool = True) -> str:
    """``{{group}}``/``{{charIfNotGroup}}`` (``{{groupNotMuted}}`` without ``muted``), M1.3."""
    if call.group is not None:
        return call.group
    g = run.ctx.group
    if g is None:
        return char_name(run, call)
    return ", ".join(n for n, avatar in g.members if muted or avatar not in g.disabled_members)


def not_char(run: Run, call: Call) -> str:
    """``{{notChar}}`` (M1.4)."""
    g = run.ctx.group
    user = user_name(run, call)
    if g is None:
        return user
    speaker = char_name(run, call)
    return ", ".join([n for n, _ in g.members if n != speaker] + [user])


def environment(run: Run, call: Call) -> dict[str, EnvValue]:
    """The environment object in insertion order (section 1)."""
    env: dict[str, EnvValue] = {}
    if call.original is not None:
        used = [False]
        original = call.original

        def once() -> str:
            if used[0]:
                return ""
            used[0] = True
            return original

        env["original"] = once
    if call.replace_card:
        f = card_fields(run)
        env["charPrompt"] = f.system
        env["charJailbreak"] = f.jailbreak
        env["charInstruction"] = f.jailbreak
        env["description"] = f.description
        env["personality"] = f.personality
        env["scenario"] = f.scenario
        env["persona"] = f.persona
        env["mesExamples"] = lambda: mes_examples(run, f.mes_examples)
        env["mesExamplesRaw"] = f.mes_examples
        env["charVersion"] = f.version
        env["char_version"] = f.version
        env["charDepthPrompt"] = f.depth_prompt
        env["creatorNotes"] = f.creator_notes
    env["user"] = user_name(run, call)
    env["char"] = char_name(run, call)
    group = group_value(run, call)
    env["charIfNotGroup"] = group
    env["group"] = group
    env["groupNotMuted"] = group_value(run, call, muted=False)
    env["notChar"] = not_char(run, call)
    env["model"] = run.ctx.model
    env["isMobile"] = "true" if run.ctx.is_mobile else "false"
    env["lastGenerationType"] = run.ctx.generation_type
    return env
