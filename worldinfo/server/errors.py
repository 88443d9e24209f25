"""JSON error responses: each typed error keeps the message the CLI shows and its JSON paths.

``RequestError`` (a body that does not fit its schema) is 400, ``HttpError`` carries its own
status (401 no token, 413 too large), ``NotFound`` is 404 (also for another caller's ids),
``LorebookImportError`` is 422 with the file, the format and every problem, ``Busy`` is 503;
anything else is logged and reported as a 500 without details.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.responses import JSONResponse

from worldinfo.importers import LorebookImportError, Problem
from worldinfo.server.service import Busy
from worldinfo.server.storage import NotFound
from worldinfo.server.wire import RequestError

log = logging.getLogger(__name__)


class HttpError(Exception):
    """An error with its HTTP status and JSON body."""

    def __init__(self, status: int, kind: str, message: str, **extra: Any) -> None:
        self.status = status
        self.body = {"error": {"type": kind, "message": message, **extra}}
        super().__init__(message)


def _problems(problems: tuple[Problem, ...]) -> list[dict[str, str]]:
    return [{"json_path": p.json_path, "message": p.message} for p in problems]


def error_response(exc: BaseException) -> JSONResponse:
    """The JSON error response for an exception raised by a handler."""
    if isinstance(exc, HttpError):
        return JSONResponse(exc.body, status_code=exc.status)
    if isinstance(exc, RequestError):
        body = {"type": "RequestError", "message": str(exc), "problems": _problems(exc.problems)}
        return JSONResponse({"error": body}, status_code=400)
    if isinstance(exc, LorebookImportError):
        body = {
            "type": "LorebookImportError",
            "message": str(exc),
            "file": exc.file,
            "format": exc.format,
            "problems": _problems(exc.problems),
        }
        return JSONResponse({"error": body}, status_code=422)
    if isinstance(exc, NotFound):
        return JSONResponse({"error": {"type": "NotFound", "message": str(exc)}}, status_code=404)
    if isinstance(exc, Busy):
        return JSONResponse({"error": {"type": "Busy", "message": str(exc)}}, status_code=503)
    log.exception("internal error", exc_info=exc)
    message = f"internal error (please report): {type(exc).__name__}"
    return JSONResponse({"error": {"type": "InternalError", "message": message}}, status_code=500)
