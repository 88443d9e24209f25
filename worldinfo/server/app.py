"""The HTTP layer: Starlette routes over ``handlers``, with the safety defaults.

Every request but ``/v1/health`` and ``/openapi.json`` needs the bearer token when the server
has tokens; a token's hash is the caller's principal, and every id a request names is looked
up under that principal only (ids are 128-bit random as well). Bodies are read up to a byte
limit. Work runs in a bounded thread pool, off the event loop, JSON parsing and encoding
included (scans take turns, see ``Service``); requests for one session queue on a lock in
the worker before the database's own. Nothing from a request is used as a path.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from worldinfo._js import JSONBounds, JSONLimitError, check_json_bounds
from worldinfo.importers import Limits, Problem
from worldinfo.server import handlers as h
from worldinfo.server import timing
from worldinfo.server.backends import open_storage
from worldinfo.server.encode import Encoded, FastJSONResponse, encode
from worldinfo.server.errors import HttpError, error_response
from worldinfo.server.service import Service
from worldinfo.server.timing import GcClock, RequestTiming
from worldinfo.server.wire import RequestError, openapi

log = logging.getLogger(__name__)
MiB = 1024 * 1024
CONFIG_ENV = "WORLDINFO_SERVE_CONFIG"
Work = Callable[[Request, str], Awaitable[tuple[int, Any]]]
"""An endpoint's work: the request and its caller's principal to a status and a body."""
JSON_BOUNDS = JSONBounds()
"""The bounds the importers apply to a JSON file, applied to request bodies as well."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerConfig:
    """How one worker runs.

    Args:
        database: a SQLite file path or a ``postgresql://`` DSN.
        token_hashes: SHA-256 hex digests of the accepted bearer tokens (empty: no token).
        max_body: the largest JSON body accepted, in bytes.
        max_upload: the largest upload accepted, in bytes (also the importers' file bound).
        threads: how many requests one worker runs at once.
    """

    database: str
    token_hashes: tuple[str, ...] = ()
    max_body: int = 8 * MiB
    max_upload: int = 16 * MiB
    threads: int = 4

    def to_json(self) -> str:
        """The config as the environment passes it to worker processes."""
        return json.dumps(asdict(self))  # the tuple of hashes becomes a list


def token_hash(token: str) -> str:
    """The stored form of a bearer token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Server:
    """One worker's state: the service, the token hashes, the per-session locks."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        limits = Limits(max_file_bytes=config.max_upload)
        self.service = Service(open_storage(config.database), limits=limits)
        # A fixed pool: its threads live as long as the worker, and so do their database
        # connections (one per thread), so a worker never holds more than ``threads``.
        self.pool = ThreadPoolExecutor(config.threads, thread_name_prefix="worldinfo")
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}
        self.gc = GcClock()  # the collector's pauses, once ``activate``d

    def activate(self) -> None:
        """This process is a worker: tune and freeze its collector, and time its pauses."""
        self.service.heap.activate()
        self.gc.install()

    def owner(self, request: Request) -> str:
        """The caller's principal (raises 401 without a valid token)."""
        if not self.config.token_hashes:
            return ""
        auth = request.headers.get("authorization", "")
        scheme, _, token = auth.partition(" ")
        if scheme.lower() == "bearer" and token:
            digest = token_hash(token.strip())
            for known in self.config.token_hashes:
                if hmac.compare_digest(digest, known):
                    return digest[:32]
        raise HttpError(401, "Unauthorized", "a valid bearer token is required")

    async def body(self, request: Request, *, limit: int) -> bytes:
        """The request body, refused past ``limit`` bytes."""
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise HttpError(413, "PayloadTooLarge", f"body larger than {limit} bytes; refused")
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise HttpError(413, "PayloadTooLarge", f"body larger than {limit} bytes; refused")
            chunks.append(chunk)
        return b"".join(chunks)

    def json(self, raw: bytes) -> Any:
        """A request body as JSON (``{}`` when empty); run in the pool, as the work is (a body
        of megabytes takes a while to check and parse: the event loop keeps serving)."""
        if not raw.strip():
            return {}
        try:
            check_json_bounds(raw, JSON_BOUNDS)  # nesting, items, strings: before parsing
            return json.loads(raw, parse_constant=_not_json)
        except JSONLimitError as exc:
            raise RequestError([Problem("$", str(exc))]) from None
        except (ValueError, RecursionError) as exc:
            raise RequestError([Problem("$", f"not JSON: {exc}")]) from None

    def _work(self, fn: Callable[[], Any], timing: RequestTiming | None) -> Any:
        with self.service.clock.work(timing):
            try:
                return fn()
            finally:
                self.service.settle()

    async def run_json(
        self, request: Request, fn: Callable[[Any], Any], *, session: str | None = None
    ) -> Any:
        """``run(fn(body))`` with the request's JSON body, parsed in the pool thread, and the
        response encoded there too (a large book's answer is some 43 kB)."""
        raw = await self.body(request, limit=self.config.max_body)

        def work() -> Encoded:
            out = fn(self.json(raw))
            with self.service.clock.phase("encode"):
                return Encoded(body=encode(out))

        return await self.run(work, session=session)

    async def run(self, fn: Callable[[], Any], *, session: str | None = None) -> Any:
        """Run blocking work in the pool; one at a time per session in this worker."""
        fn = partial(self._work, fn, timing.CURRENT.get())
        if session is None:
            return await asyncio.get_running_loop().run_in_executor(self.pool, fn)
        lock, users = self._locks.get(session, (asyncio.Lock(), 0))
        self._locks[session] = (lock, users + 1)
        try:
            async with lock:
                return await asyncio.get_running_loop().run_in_executor(self.pool, fn)
        finally:
            lock, users = self._locks[session]
            if users <= 1:
                del self._locks[session]
            else:
                self._locks[session] = (lock, users - 1)


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _upload_name(raw: str | None) -> str:
    """A label for an upload: the last path part, printable, at most 255 characters."""
    name = (raw or "upload").replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(c for c in name if c.isprintable())[:255]
    return name if name.strip(". ") else "upload"


def routes(server: Server) -> list[Route]:
    """Every route of the API (``openapi.json`` documents the same set)."""
    svc = server.service

    def endpoint(work: Work, *, public: bool = False) -> Callable[[Request], Awaitable[Response]]:
        async def handle(request: Request) -> Response:
            spent = RequestTiming(server.gc)
            timing.CURRENT.set(spent)
            try:
                owner = "" if public else server.owner(request)
                status, out = await work(request, owner)
            except Exception as exc:  # noqa: BLE001 - every error becomes a JSON response
                response: Response = error_response(exc)
            else:
                response = (
                    Response(status_code=204)
                    if status == 204
                    else FastJSONResponse(out, status_code=status)
                )
            response.headers["x-worldinfo-worker"] = str(os.getpid())
            response.headers[timing.HEADER] = spent.header()
            return response

        return handle

    async def health(request: Request, owner: str) -> tuple[int, Any]:
        return 200, {"status": "ok", "pid": os.getpid()}

    async def document(request: Request, owner: str) -> tuple[int, Any]:
        return 200, openapi()

    async def imports(request: Request, owner: str) -> tuple[int, Any]:
        if request.method == "GET":
            return 200, await server.run(partial(h.list_uploads, svc, owner))
        raw = await server.body(request, limit=server.config.max_upload)
        name = _upload_name(request.query_params.get("name"))
        trust = request.query_params.get("trust", "false").lower() in ("1", "true", "yes")
        work = partial(h.import_upload, svc, owner, raw, name=name, trust=trust)
        return 201, await server.run(work)

    async def sessions(request: Request, owner: str) -> tuple[int, Any]:
        return 201, await server.run_json(request, partial(h.create_session, svc, owner))

    async def session(request: Request, owner: str) -> tuple[int, Any]:
        sid = request.path_params["session_id"]
        if request.method == "DELETE":
            await server.run(partial(svc.delete_session, owner, sid), session=sid)
            return 204, None
        row = await server.run(partial(svc.storage.session, owner, sid))
        return 200, h.session_json(row)

    def on_session(fn: Callable[..., Any]) -> Work:
        async def work(request: Request, owner: str) -> tuple[int, Any]:
            sid = request.path_params["session_id"]
            if request.method == "GET":
                return 200, await server.run(partial(fn, svc, owner, sid))
            return 200, await server.run_json(request, partial(fn, svc, owner, sid), session=sid)

        return work

    def on_memory(fn: Callable[..., Any]) -> Work:
        async def work(request: Request, owner: str) -> tuple[int, Any]:
            work = partial(fn, svc, owner, request.path_params["store_id"])
            return 200, await server.run_json(request, work)

        return work

    async def memories(request: Request, owner: str) -> tuple[int, Any]:
        return 201, await server.run_json(request, partial(h.create_memory, svc, owner))

    async def metadata(request: Request, owner: str) -> tuple[int, Any]:
        fn = h.get_metadata if request.method == "GET" else h.put_metadata
        return await on_session(fn)(request, owner)

    s = "/v1/sessions/{session_id}"
    return [
        Route("/v1/health", endpoint(health, public=True)),
        Route("/openapi.json", endpoint(document, public=True)),
        Route("/v1/imports", endpoint(imports), methods=["GET", "POST"]),
        Route("/v1/sessions", endpoint(sessions), methods=["POST"]),
        Route(s, endpoint(session), methods=["GET", "DELETE"]),
        Route(s + "/generate", endpoint(on_session(h.generate)), methods=["POST"]),
        Route(s + "/explain", endpoint(on_session(h.explain)), methods=["POST"]),
        Route(s + "/messages", endpoint(on_session(h.add_messages)), methods=["POST"]),
        Route(s + "/metadata", endpoint(metadata), methods=["GET", "PUT"]),
        Route(s + "/metadata/reset", endpoint(on_session(h.reset_metadata)), methods=["POST"]),
        Route("/v1/memories", endpoint(memories), methods=["POST"]),
        Route("/v1/memories/{store_id}/ingest", endpoint(on_memory(h.ingest)), methods=["POST"]),
        Route("/v1/memories/{store_id}/query", endpoint(on_memory(h.query)), methods=["POST"]),
    ]


def create_app(config: ServerConfig) -> Starlette:
    """The ASGI application for one worker."""
    server = Server(config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        server.pool.shutdown(wait=True)
        server.service.storage.close()

    app = Starlette(routes=routes(server), lifespan=lifespan)
    app.state.server = server
    return app


def app_from_env() -> Starlette:
    """The application built from ``$WORLDINFO_SERVE_CONFIG`` (uvicorn's factory, per worker)."""
    data = json.loads(os.environ[CONFIG_ENV])
    data["token_hashes"] = tuple(data.get("token_hashes", ()))
    app = create_app(ServerConfig(**data))
    app.state.server.activate()  # this process is a worker: its collector too
    return app
