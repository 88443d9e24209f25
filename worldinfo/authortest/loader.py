"""Loading ``*.witest.json`` files: schema validation, books, character, entry references."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from worldinfo import _js
from worldinfo._js import JSONValue
from worldinfo._record import field, record
from worldinfo.authortest.model import (
    AuthorTestError,
    Case,
    Importer,
    Ref,
    Step,
    Suite,
    UnreadableFile,
)
from worldinfo.types import GENERATION_TYPES, Book, Character, Message, Persona, Settings

_SPEAKER = re.compile(r"([^:\n]{1,80}): (.*)\Z", re.DOTALL)


def schema_problems(data: JSONValue, *, importer: Importer) -> list[tuple[str, str]]:
    """Every schema violation as ``(json_path, message)``, the most relevant first."""
    from jsonschema.exceptions import best_match  # type: ignore[import-untyped]

    errors = list(importer.validator("authortest").iter_errors(data))
    if not errors:
        return []
    best = best_match(errors)
    ordered = [best, *(e for e in errors if e is not best)]
    return [(_path(e.absolute_path), str(e.message)[:300]) for e in ordered]


def _path(parts: Any) -> str:
    return "$" + "".join(f".{p}" for p in parts)


@record(frozen=False, kw_only=False)
class _Books:
    books: dict[str, Book] = field(default_factory=dict)
    global_names: list[str] = field(default_factory=list)
    character: Character | None = None


def load_suite(path: Path, *, importer: Importer, text: str | None = None) -> Suite:
    """Read and resolve a test file (see ``worldinfo.authortest.load``)."""
    file = str(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8") if text is None else text)
    except OSError as exc:
        raise AuthorTestError(file, "$", message=f"cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise AuthorTestError(file, "$", message=f"not JSON: {exc}") from None
    problems = schema_problems(data, importer=importer)
    if problems:
        where, message = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise AuthorTestError(file, where, message=message + more)
    read = _read_books(path, data["books"], importer=importer)
    persona_obj = data.get("persona") or {}
    persona = Persona(
        name=persona_obj.get("name", "User"), description=persona_obj.get("description", "")
    )
    character = read.character
    c = data.get("character")
    if isinstance(c, str):
        character = _read_card(path, c, read=read, importer=importer)
    elif isinstance(c, dict):
        character = Character(
            name=c["name"],
            avatar=c.get("avatar", ""),
            tags=tuple(c.get("tags", ())),
            description=c.get("description", ""),
            personality=c.get("personality", ""),
            scenario=c.get("scenario", ""),
            depth_prompt=c.get("depth_prompt", ""),
            creator_notes=c.get("creator_notes", ""),
        )
    top_settings = data.get("settings") or {}
    cases = tuple(
        _case(
            file,
            obj,
            i=i,
            books=read.books,
            persona=persona,
            settings=top_settings,
            seed=data,
            importer=importer,
        )
        for i, obj in enumerate(data["cases"])
    )
    return Suite(
        path=path,
        books=read.books,
        global_books=tuple(read.global_names),
        character=character,
        persona=persona,
        max_context=int(data.get("max_context", 8192)),
        cases=cases,
    )


def _import(path: Path, rel: str, *, where: str, importer: Importer) -> Any:
    target = path.parent / rel
    try:  # a missing file is said as every command says it, not as a failed import
        target.open("rb").close()
    except OSError as exc:
        raise UnreadableFile(str(path), where, target=str(target), error=exc) from None
    result, _, fmt, problems = importer.analyse(target)
    if result is None:
        first = f": {problems[0]}" if problems else ""
        raise AuthorTestError(str(path), where, message=f"cannot import {rel} as {fmt}{first}")
    return result


def _read_books(path: Path, rels: list[str], *, importer: Importer) -> _Books:
    read = _Books()
    for i, rel in enumerate(rels):
        result = _import(path, rel, where=f"$.books.{i}", importer=importer)
        for book in result.books:
            read.books[book.name] = book
        if result.character is not None:
            read.character = result.character
        else:
            read.global_names.extend(b.name for b in result.books)
    return read


def _read_card(path: Path, rel: str, *, read: _Books, importer: Importer) -> Character:
    result = _import(path, rel, where="$.character", importer=importer)
    if result.character is None:
        raise AuthorTestError(str(path), "$.character", message=f"{rel} is not a character card")
    for book in result.books:
        read.books[book.name] = book
    character: Character = result.character
    return character


def _message(obj: JSONValue, persona: Persona) -> Message:
    if isinstance(obj, dict):
        return Message(
            name=str(obj.get("name", persona.name)),
            mes=str(obj["mes"]),
            is_user=bool(obj.get("is_user", False)),
            is_system=bool(obj.get("is_system", False)),
        )
    text = str(obj)
    m = _SPEAKER.match(text)
    if m is None:
        return Message(name=persona.name, mes=text, is_user=True)
    name = m.group(1)
    return Message(name=name, mes=m.group(2), is_user=name == persona.name)


def _chat(
    file: str, chat: JSONValue, *, where: str, persona: Persona, importer: Importer
) -> tuple[Message, ...]:
    if isinstance(chat, list):
        return tuple(_message(m, persona) for m in chat)
    result = _import(Path(file), str(chat), where=where, importer=importer)
    if not result.chat:
        raise AuthorTestError(file, where, message=f"{chat} holds no chat messages")
    return tuple(result.chat)


def _case(
    file: str,
    obj: Mapping[str, Any],
    *,
    i: int,
    books: Mapping[str, Book],
    persona: Persona,
    settings: Mapping[str, JSONValue],
    seed: Mapping[str, Any],
    importer: Importer,
) -> Case:
    where = f"$.cases.{i}"
    first = _step(file, obj, where=where, books=books, persona=persona)
    return Case(
        name=obj["name"],
        index=i,
        chat=_chat(file, obj["chat"], where=f"{where}.chat", persona=persona, importer=importer),
        type=first.type,
        settings=Settings.from_json({**settings, **(obj.get("settings") or {})}),
        seed=int(obj.get("seed", seed.get("seed", 1))),
        max_context=obj.get("max_context"),
        fire=first.fire,
        not_fire=first.not_fire,
        only=first.only,
        then=tuple(
            _step(file, s, where=f"{where}.then.{j}", books=books, persona=persona)
            for j, s in enumerate(obj.get("then") or ())
        ),
    )


def _step(
    file: str, obj: Mapping[str, Any], *, where: str, books: Mapping[str, Book], persona: Persona
) -> Step:
    kind = obj.get("type", "normal")
    assert kind in GENERATION_TYPES
    return Step(
        append=tuple(_message(m, persona) for m in obj.get("append") or ()),
        type=kind,
        fire=tuple(
            resolve(file, r, where=f"{where}.fire.{j}", books=books)
            for j, r in enumerate(obj.get("fire", []))
        ),
        not_fire=tuple(
            resolve(file, r, where=f"{where}.not_fire.{j}", books=books)
            for j, r in enumerate(obj.get("not_fire", []))
        ),
        only=bool(obj.get("only", False)),
    )


def resolve(file: str, ref: JSONValue, *, where: str, books: Mapping[str, Book]) -> Ref:
    """Find the one entry a reference names.

    Raises:
        AuthorTestError: no entry or several entries match.
    """
    scope = books
    uid: JSONValue = None
    comment: str | None = None
    if isinstance(ref, dict):
        name = str(ref["book"])
        if name not in books:
            known = ", ".join(sorted(books)) or "none"
            raise AuthorTestError(file, where, message=f"no book named {name!r} (books: {known})")
        scope = {name: books[name]}
        uid, comment = ref.get("uid"), ref.get("comment")
    elif isinstance(ref, str):
        comment = ref
    else:
        uid = ref
    hits = [
        (name, e)
        for name, book in scope.items()
        for e in book.entries or ()
        if (comment is not None and e.comment == comment)
        or (comment is None and _js.strict_eq(e.uid, uid))
    ]
    what = f"title {comment!r}" if comment is not None else f"uid {_js.to_string(uid)}"
    if not hits:
        raise AuthorTestError(file, where, message=f"no entry with {what}")
    if len(hits) > 1:
        places = ", ".join(f"{n}.{_js.to_string(e.uid)}" for n, e in hits)
        raise AuthorTestError(
            file, where, message=f"{what} is ambiguous ({places}): name the book and the uid"
        )
    name, entry = hits[0]
    title = f"{entry.comment!r} " if entry.comment else ""
    return Ref(world=name, uid=entry.uid, label=f"{title}({name}.{_js.to_string(entry.uid)})")
