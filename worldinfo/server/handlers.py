"""Request handlers: validated JSON in, JSON out (no HTTP here; ``app`` maps the routes).

Each function takes the service, the caller's principal and the request's values, and
returns the response object. Errors are raised typed (``RequestError``, ``NotFound``,
``LorebookImportError``, ``Busy``); ``app`` turns them into JSON error responses.
"""

from __future__ import annotations

from collections.abc import Mapping

from worldinfo._js import JSONValue, canonical
from worldinfo.explain import render_trace, trace_json
from worldinfo.importers import Imported, Problem
from worldinfo.result import ScanResult
from worldinfo.server.memory import PersistedMemory
from worldinfo.server.service import Service, memory_settings_json
from worldinfo.server.storage import BookRow, MemoryRow, SessionRow
from worldinfo.server.uploads import new_id
from worldinfo.server.wire import (
    RequestError,
    canonical_object,
    check_body,
    message_from,
    scan_json,
)
from worldinfo.session import Session
from worldinfo.sources.retriever import Retrieval
from worldinfo.sources.retriever_chat import ChatSync
from worldinfo.sources.retriever_tokenize import lore_tokens
from worldinfo.sources.timestamps import TimestampError

Obj = dict[str, JSONValue]


def upload_json(row: BookRow, imported: Imported) -> Obj:
    """What an upload holds."""
    return {
        "id": row.id,
        "name": row.name,
        "sha256": row.sha256,
        "format": row.format,
        "trust": row.trust,
        "books": [{"name": b.name, "entries": len(b.entries or ())} for b in imported.books],
        "character": imported.character.name if imported.character else None,
        "chat_messages": len(imported.chat),
    }


def import_upload(svc: Service, owner: str, raw: bytes, *, name: str, trust: bool) -> Obj:
    """Import and store one upload."""
    row = svc.import_upload(owner, raw, name=name, trust=trust)
    return upload_json(row, svc.imported(row))


def list_uploads(svc: Service, owner: str) -> Obj:
    """The caller's uploads."""
    return {"imports": [upload_json(r, svc.imported(r)) for r in svc.storage.books(owner)]}


def session_json(row: SessionRow) -> Obj:
    """A session as stored."""
    return {
        "id": row.id,
        "config": row.config,
        "chat": row.chat,
        "chat_metadata": canonical_object(row.chat_metadata),
        "turn": row.turn,
    }


def create_session(svc: Service, owner: str, body: JSONValue) -> Obj:
    """Open a session."""
    return session_json(svc.create_session(owner, check_body("SessionCreate", body)))


def result_json(
    session: Session, result: ScanResult, *, row: SessionRow, trace: bool, entries: bool
) -> Obj:
    """A generation's result as ``worldinfo scan --json`` prints it (the activated entries'
    fields only with ``entries``; their titles always), plus the session's turn."""
    out = scan_json(result)
    out["titles"] = result.activated_titles
    if entries:
        out["activated_entries"] = [canonical(dict(e)) for e in result.activated]
    out["chat_metadata"] = canonical_object(session.chat_metadata)
    out["session"] = row.id
    out["turn"] = row.turn + 1
    if trace:
        out["trace"] = trace_json(result)
    return out


def generate(svc: Service, owner: str, session_id: str, body: JSONValue) -> Obj:
    """One generation's scan (append, swipe, regenerate, continue, quiet, dry run)."""
    req = check_body("GenerateRequest", body)
    messages = [message_from(m) for m in req.get("append") or [] if isinstance(m, dict)]
    force = [(str(w), u) for w, u in req.get("force_activate") or []]
    trace = bool(req.get("trace", False))
    dry = bool(req.get("dry_run", False))
    entries = bool(req.get("entries", False))

    def run(session: Session, row: SessionRow) -> Obj:
        with svc.clock.scan():
            result = session.generate(
                str(req.get("type", "normal")),
                append=messages,
                dry_run=dry,
                quiet_prompt=str(req.get("quiet_prompt", "")),
                force_activate=force,
                trace=trace,
            )
        return result_json(session, result, row=row, trace=trace, entries=entries)

    if dry:
        return svc.peek(owner, session_id, run)
    return svc.update(owner, session_id, run, generation=True)


def explain(svc: Service, owner: str, session_id: str, body: JSONValue) -> Obj:
    """Why each entry would or would not activate in the next generation (nothing stored)."""
    req = check_body("ExplainRequest", body)
    messages = [message_from(m) for m in req.get("append") or [] if isinstance(m, dict)]

    def run(session: Session, row: SessionRow) -> Obj:
        with svc.clock.scan():
            result = session.generate(str(req.get("type", "normal")), append=messages, trace=True)
        out = trace_json(result)
        out["text"] = render_trace(result, books=session.books, count_tokens=session.count_tokens)
        return out

    return svc.peek(owner, session_id, run)


def add_messages(svc: Service, owner: str, session_id: str, body: JSONValue) -> Obj:
    """Add messages to the chat (a reply, a swipe's new text with ``replace_last``)."""
    req = check_body("MessagesRequest", body)
    messages = [message_from(m) for m in req["messages"] if isinstance(m, dict)]

    def run(session: Session, row: SessionRow) -> Obj:
        if req.get("replace_last") and session.chat:
            session.chat.pop()
        session.append(messages)
        return {"session": row.id, "chat_length": len(session.chat)}

    return svc.update(owner, session_id, run)


def get_metadata(svc: Service, owner: str, session_id: str) -> Obj:
    """The chat metadata."""
    return canonical_object(svc.storage.session(owner, session_id).chat_metadata)


def put_metadata(svc: Service, owner: str, session_id: str, body: JSONValue) -> Obj:
    """Replace the chat metadata."""
    new = check_body("ChatMetadata", body)

    def run(session: Session, row: SessionRow) -> Obj:
        session.chat_metadata = dict(new)
        return canonical_object(new)

    return svc.update(owner, session_id, run)


def reset_metadata(svc: Service, owner: str, session_id: str, body: JSONValue) -> Obj:
    """Remove metadata keys (default: ``timedWorldInfo``, the timed effects)."""
    req = check_body("ResetRequest", body)
    keys = [str(k) for k in req.get("keys") or ["timedWorldInfo"]]

    def run(session: Session, row: SessionRow) -> Obj:
        for k in keys:
            session.chat_metadata.pop(k, None)
        return canonical_object(session.chat_metadata)

    return svc.update(owner, session_id, run)


# --- memory stores ---------------------------------------------------------------------


def create_memory(svc: Service, owner: str, body: JSONValue) -> Obj:
    """Create an empty memory store."""
    req = check_body("MemoryCreate", body)
    settings = req.get("settings") or {}
    assert isinstance(settings, dict)
    row = MemoryRow(id=new_id("me"), owner=owner, settings=memory_settings_json(settings))
    svc.storage.create_memory(row)
    return {"id": row.id, "settings": row.settings, "records": 0}


def ingest(svc: Service, owner: str, store_id: str, body: JSONValue) -> Obj:
    """Ingest exchanges (or a whole chat, kept in step like a live session) into a store."""
    req = check_body("IngestRequest", body)

    def run(store: PersistedMemory) -> Obj:
        ingested = deleted = 0
        for i, ex in enumerate(req.get("exchanges") or []):
            assert isinstance(ex, dict)
            user, reply, ref = str(ex["user"]), str(ex["reply"]), str(ex["source_ref"])
            try:
                rec = store.ingest(user, reply, source_ref=ref, timestamp=ex.get("timestamp"))
            except TimestampError as exc:  # nothing of this request is stored
                raise RequestError([Problem(f"$.exchanges.{i}.timestamp", str(exc))]) from None
            ingested += rec is not None
        chat = req.get("chat")
        if isinstance(chat, list):
            sync = ChatSync(store, chat_id=str(req.get("chat_id", "chat")), adopt=False)
            n, deleted = sync.sync([message_from(m) for m in chat if isinstance(m, dict)])
            ingested += n
        return {"id": store_id, "ingested": ingested, "deleted": deleted, "records": len(store)}

    return svc.memory_op(owner, store_id, run)


def retrieval_json(r: Retrieval, divisor: int) -> Obj:
    """A query's keywords, ranking and pick (``worldinfo memory query --json``'s fields)."""
    return {
        "keywords": [
            {"word": k.word, "score": float(k.score), "count": k.count, "from_reply": k.from_reply,
             "lore": k.lore}
            for k in r.keywords
        ],
        "ranked": [
            {"record": s.record_id, "score": s.s115 / divisor, "s115": s.s115, "rank": s.rank,
             "matches": list(s.matches), "kept": list(s.kept)}
            for s in r.ranked
        ],
        "pick": None if r.pick is None else {"record": r.pick.id, "source_ref": r.pick.source_ref},
        "window": [rec.id for rec in r.window],
        "block": r.block,
    }  # fmt: skip


def query(svc: Service, owner: str, store_id: str, body: JSONValue) -> Obj:
    """Query a store: keywords, scores and the pick for a message."""
    req = check_body("QueryRequest", body)
    lore_keys = [str(k) for k in req.get("lore") or []]

    def run(store: PersistedMemory) -> Obj:
        lore = lore_tokens(lore_keys, punctuation=store.settings.punctuation)
        text, previous = str(req["text"]), str(req.get("previous", ""))
        r = store.retrieve(text, previous, lore=lore, top=_int(req, "top", 5))
        return retrieval_json(r, store.settings.length_divisor)

    return svc.memory_op(owner, store_id, run)


def _int(req: Mapping[str, JSONValue], key: str, default: int) -> int:
    value = req.get(key, default)
    return value if isinstance(value, int) else default
