"""Runner for ``st-macros-golden/1``: SillyTavern's macro evaluator cases (spec §14).

Each case is one ``substituteParams`` call with everything it reads pinned. Compared:
``output`` (or ``error``), ``chat_metadata`` (variables and ``chat_id_hash``),
``global_variables``, ``banned_words``, how many values each random source gave, and how
many passes threw.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo.conformance.base import Outcome, register
from worldinfo.macros import Call, Card, Group, MacroContext, MacroState, PowerUser, evaluate
from worldinfo.macros.evaluator import MacroTypeError

Obj = Mapping[str, JSONValue]


class _Draws:
    """A random source that hands out the case's values in order and counts them."""

    def __init__(self, values: Sequence[float]) -> None:
        self.values = list(values)
        self.used = 0

    def __call__(self) -> float:
        value = self.values[self.used % len(self.values)] if self.values else 0.0
        self.used += 1
        return value


def _card(c: Obj | None) -> Card | None:
    if not isinstance(c, dict):
        return None
    fields = {k: c[k] for k in Card.__dataclass_fields__ if isinstance(c.get(k), str)}
    return Card(**fields)


def _group(g: Obj | None) -> Group | None:
    if not isinstance(g, dict):
        return None
    members = tuple((str(m.get("name", "")), str(m.get("avatar", ""))) for m in g["members"])
    disabled = tuple(g.get("disabled_members") or ())
    return Group(chat_id=str(g.get("chat_id", "")), members=members, disabled_members=disabled)


def _power_user(p: Obj) -> PowerUser:
    d = PowerUser()
    sys_ = p.get("sysprompt") or {}
    ctx = p.get("context") or {}
    return PowerUser(
        collapse_newlines=bool(p.get("collapse_newlines", d.collapse_newlines)),
        prefer_character_prompt=bool(p.get("prefer_character_prompt", d.prefer_character_prompt)),
        prefer_character_jailbreak=bool(
            p.get("prefer_character_jailbreak", d.prefer_character_jailbreak)
        ),
        sysprompt_enabled=bool(sys_.get("enabled", d.sysprompt_enabled)),
        sysprompt_content=str(sys_.get("content", d.sysprompt_content)),
        chat_start=str(ctx.get("chat_start", d.chat_start)),
        example_separator=str(ctx.get("example_separator", d.example_separator)),
    )


def context_for(
    case: Obj, random: Callable[[], float], math_random: Callable[[], float]
) -> MacroContext:
    """The ``MacroContext`` a case describes."""
    env: Obj = case["env"]
    now = datetime.fromisoformat(str(case["clock"]["now"]))
    shown = env.get("first_displayed_message_id")
    return MacroContext(
        user=str(env.get("user", "")),
        char=str(env.get("char", "")),
        character=_card(env.get("character")),
        persona_description=str(env.get("persona_description") or ""),
        group=_group(env.get("group")),
        main_api=str(env.get("main_api", "openai")),
        model=str(env.get("model") or ""),
        max_context=int(env.get("max_context", 8192)),
        input_box=str(env.get("input_box") or ""),
        is_mobile=bool(env.get("is_mobile")),
        generation_type=str(env.get("generation_type") or ""),
        first_displayed_message_id=shown if isinstance(shown, int) else None,
        outlets=dict(env.get("outlets") or {}),
        power_user=_power_user(env.get("power_user") or {}),
        chat=tuple(case.get("chat") or ()),
        chat_metadata=case.get("chat_metadata") or {},
        clock=lambda: now,
        tz=ZoneInfo(str(case["clock"]["tz"])),
        random=random,
        math_random=math_random,
    )


def call_for(call: Obj) -> Call:
    """The call options (M0.2): World Info's, the options object, or positional arguments."""
    kind = call.get("kind")
    if kind == "options":
        o: Obj = call.get("options") or {}
        args: list[JSONValue] = [
            o.get(k, _js.UNDEFINED)
            for k in ("name1Override", "name2Override", "original", "groupOverride")
        ]
        args.append(o.get("replaceCharacterCard", _js.UNDEFINED))
    elif kind == "positional":
        args = list(call.get("args") or ()) + [_js.UNDEFINED] * 5
    else:
        return Call()

    def text(v: JSONValue) -> str | None:
        return v if isinstance(v, str) else None  # `override ?? global`: "" is kept

    return Call(
        name1=text(args[0]),
        name2=text(args[1]),
        original=args[2] if isinstance(args[2], str) else None,
        group=text(args[3]),
        replace_card=args[4] is _js.UNDEFINED or _js.truthy(args[4]),
    )


def observed(case: Obj) -> dict[str, JSONValue]:
    """Run one case; the record in the shape of ``expect``."""
    rng: Obj = case.get("rng") or {}
    random, math_random = _Draws(rng.get("random") or ()), _Draws(rng.get("math_random") or ())
    md = copy.deepcopy(dict(case.get("chat_metadata") or {}))
    variables = md.get("variables")
    state = MacroState(
        local=variables if isinstance(variables, dict) else None,
        globals=dict(case.get("global_variables") or {}),
        chat_id_hash=md.get("chat_id_hash"),
    )
    ctx = context_for(case, random, math_random)
    out: dict[str, JSONValue] = {"output": None, "error": None}
    try:
        result = evaluate(case["input"], context=ctx, state=state, call=call_for(case["call"]))
    except MacroTypeError as exc:
        out["error"] = str(exc)
        _store(exc.state, md)
        out["chat_metadata"], out["global_variables"] = md, dict(exc.state.globals)
        return out
    _store(result.state, md)
    out |= {
        "output": result.output,
        "chat_metadata": md,
        "global_variables": dict(result.state.globals),
        "banned_words": list(result.banned_words),
        "rng_used": {"random": random.used, "math_random": math_random.used},
        "caught_macro_errors": len(result.caught_errors),
    }
    return out


def _store(state: MacroState, md: dict[str, JSONValue]) -> None:
    if state.local is not None:
        md["variables"] = dict(state.local)
    if state.chat_id_hash is not None:
        md["chat_id_hash"] = state.chat_id_hash


def first_difference(expect: Obj, got: Obj) -> str:
    """The first field that differs, with both values, or ``""``."""
    want = dict(expect)
    want["caught_macro_errors"] = len(expect.get("caught_macro_errors") or ())
    for key in ("error", "output", "chat_metadata", "global_variables", "banned_words"):
        if key == "banned_words" and got.get("error") is not None:
            continue
        if _js.canonical(want.get(key)) != _js.canonical(got.get(key)):
            return f"{key}: expected {_js.stringify(want.get(key))[:300]} got {_js.stringify(got.get(key))[:300]}"
    for key in ("rng_used", "caught_macro_errors"):
        if key in expect and got.get("error") is None and want[key] != got.get(key):
            return f"{key}: expected {want[key]} got {got.get(key)}"
    return ""


@register("st-macros-golden/1")
def run(case: JSONValue, path: Path) -> Iterator[Outcome]:
    """Runner entry point: one outcome per case file."""
    case_id = f"macros/{case.get('id') or path.stem}"
    detail = first_difference(case["expect"], observed(case))
    yield Outcome(case_id=case_id, ok=not detail, detail=detail)
