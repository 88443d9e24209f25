"""Runner for ``st-worldinfo-golden/1`` and ``/2``: SillyTavern oracle cases through ``Session``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from worldinfo import _js
from worldinfo._js import UNDEFINED, JSONValue
from worldinfo.conformance.base import Outcome, register
from worldinfo.result import ScanResult
from worldinfo.session import Session, names_only_macros
from worldinfo.types import Book, Character, Message, Persona, Settings

FIELDS = (
    "activated",
    "before",
    "after",
    "depth",
    "an_before",
    "an_after",
    "em",
    "outlets",
    "an_prompt",
    "rng_calls",
    "scan_loops",
    "chat_metadata",
    "error",
)


def message(obj: Mapping[str, JSONValue]) -> Message:
    """A case message."""
    return Message(
        name=_js.to_string(obj.get("name", UNDEFINED)),
        mes=obj.get("mes", UNDEFINED),
        is_user=bool(obj.get("is_user")),
        is_system=_js.truthy(obj.get("is_system")),
    )


def session_for(case: Mapping[str, JSONValue]) -> Session:
    """Build the ``Session`` a case describes (books, character, persona, chat, settings)."""
    books = {name: Book.from_json(name, obj) for name, obj in case["books"].items()}
    c = case.get("character")
    character = None
    if isinstance(c, dict):
        role = {"system": 0, "user": 1, "assistant": 2}
        character = Character(
            name=c.get("name", ""),
            avatar=c.get("avatar", ""),
            tags=tuple(c.get("tags") or ()),
            book=c.get("book") or None,
            extra_books=tuple(c.get("extra_books") or ()),
            description=c.get("description", ""),
            personality=c.get("personality", ""),
            scenario=c.get("scenario", ""),
            depth_prompt=c.get("depth_prompt", ""),
            depth_prompt_depth=c.get("depth_prompt_depth", 4),
            depth_prompt_role=c.get("depth_prompt_role", "system"),
            creator_notes=c.get("creator_notes", ""),
        )
        del role
    p = case.get("persona") or {}
    persona = Persona(
        name=p.get("name", "User"),
        description=p.get("description", ""),
        book=p.get("book") or None,
        position=p.get("position", 0),
        depth=p.get("depth", 2),
        role=p.get("role", 0),
    )
    note = (case.get("extension_settings") or {}).get("note") or {}
    seed = case["rng"]["seed"]
    return Session(
        books=books,
        settings=Settings.from_json(case["settings"]),
        global_books=case.get("global_books") or (),
        character=character,
        persona=persona,
        chat=[message(m) for m in case.get("chat") or ()],
        chat_metadata=case.get("chat_metadata") or {},
        chat_book=case.get("chat_book"),
        max_context=case["max_context"],
        allow_wi_scan=bool(note.get("allowWIScan", False)),
        fresh_chat_load=bool(case.get("fresh_chat_load", False)),
        rng=_js.mulberry32(seed),
        substitute=names_only_macros,  # the substituter the cases were made with
    )


def observed(session: Session, result: ScanResult) -> dict[str, JSONValue]:
    """The step record in the cases' shape (section 1 of FORMAT.md), canonicalised."""
    md = _js.canonical(session.chat_metadata)
    if result.error is not None:
        return {"error": result.error, "chat_metadata": md}
    out = result.to_json()
    out.pop("warnings", None)
    out["rng_calls"] = session.rng.calls
    out["chat_metadata"] = md
    return out


def first_difference(expect: Mapping[str, JSONValue], got: Mapping[str, JSONValue]) -> str:
    """Name the first differing field with both values (shortened), or ``""``."""
    for f in FIELDS + tuple(k for k in expect if k not in FIELDS):
        if f not in expect and f not in got:
            continue
        e, g = expect.get(f, "<absent>"), got.get(f, "<absent>")
        if _js.canonical(e) != _js.canonical(g):
            es, gs = _js.stringify(e), _js.stringify(g)
            return f"{f}: expected {es[:300]} got {gs[:300]}"
    return ""


def generate_step(
    session: Session, step: Mapping[str, JSONValue], *, trace: bool = False
) -> ScanResult:
    """Run one case step (its appended messages, type, dry run, quiet prompt, forced entries)."""
    return session.generate(
        step.get("type", "normal"),
        append=[message(m) for m in step.get("append") or ()],
        dry_run=bool(step.get("dry_run", False)),
        quiet_prompt=step.get("quiet_prompt", "") or "",
        force_activate=[(f["world"], f["uid"]) for f in step.get("force_activate") or ()],
        trace=trace,
    )


def trace_problem(result: ScanResult) -> str:
    """Check a traced result: the trace's activated set is the result's, and every other
    traced entry has one skip reason. Return a description of the first problem, or ``""``."""
    if result.trace is None or result.error is not None:
        return ""
    got = sorted(map(repr, result.trace.activated()))
    want = sorted(map(repr, result.activated_keys))
    if got != want:
        return f"trace: activated {got} but the result has {want}"
    for key, verdict in result.trace.verdicts.items():
        if verdict.outcome != "activated" and not verdict.reason:
            return f"trace: {key} skipped without a reason"
    return ""


def run_case(case: Mapping[str, JSONValue], name: str, *, trace: bool = False) -> Iterator[Outcome]:
    """Run every step of one case (with ``trace``, also check the trace's invariants)."""
    session = session_for(case)
    stopped = False
    for i, step in enumerate(case["steps"]):
        case_id = f"st/{name}/step-{i}"
        expect = step["expect"]
        if stopped or expect.get("not_run"):
            ok = stopped and bool(expect.get("not_run"))
            yield Outcome(case_id=case_id, ok=ok, detail="" if ok else "step should not run")
            continue
        result = generate_step(session, step, trace=trace)
        diff = first_difference(expect, observed(session, result)) or trace_problem(result)
        yield Outcome(case_id=case_id, ok=not diff, detail=diff)
        stopped = result.error is not None


@register("st-worldinfo-golden/1")
@register("st-worldinfo-golden/2")
def run(data: JSONValue, path: Path) -> Iterator[Outcome]:
    """Runner entry point."""
    yield from run_case(data, str(data.get("name") or path.stem))
