"""``worldinfo serve``: the HTTP service (needs ``pip install 'worldinfo[server]'``)."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from pathlib import Path
from typing import Any

from worldinfo.cli._commands import help_of
from worldinfo.cli._conventions import add_json_flag, cannot_read, print_json

TOKEN_ENV = "WORLDINFO_SERVE_TOKEN"
KEEP_ALIVE_S = 15
"""Idle keep-alive connections are closed after this long (uvicorn's default is 5 s; a
front-end's clients often keep theirs for 5 s too, and then race the server to close)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` sub-command."""
    p = sub.add_parser(
        "serve",
        help=help_of("serve"),
        description="Serve the engine over HTTP (OpenAPI at /openapi.json). State lives in "
        "a SQLite file (default) or PostgreSQL (--db postgresql://...), shared by the workers.",
    )
    p.add_argument("--db", default="worldinfo-serve.db", help="SQLite file or PostgreSQL DSN")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port to listen on")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default: 1)")
    p.add_argument(
        "--threads",
        type=int,
        default=4,
        help="requests one worker runs at once (default: 4); they wait for the database side "
        "by side but take turns for the scans themselves, one at a time per worker (Python "
        "runs one thread at a time): more workers add throughput",
    )
    p.add_argument(
        "--token-file",
        metavar="FILE",
        help=f"accepted bearer tokens, one per line (also: ${TOKEN_ENV}); each token's "
        "sessions, books and memories are its own",
    )
    p.add_argument("--max-body-mib", type=float, default=8.0, help="largest JSON body")
    p.add_argument("--max-upload-mib", type=float, default=16.0, help="largest upload")
    add_json_flag(p, "where it serves (url, workers, database, token), before serving,")
    p.set_defaults(func=run)


def _tokens(args: argparse.Namespace) -> list[str]:
    tokens = []
    if args.token_file:
        text = Path(args.token_file).read_text(encoding="utf-8")
        tokens += [line.strip() for line in text.splitlines() if line.strip()]
    if os.environ.get(TOKEN_ENV):
        tokens.append(os.environ[TOKEN_ENV].strip())
    return tokens


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _protocol(fallback: type[Any]) -> type[Any]:
    """httptools' protocol where httptools is installed (a third of h11's parsing time)."""
    try:
        from worldinfo.server.http_tools import NoDelayHttpToolsProtocol
    except ImportError:
        return fallback
    return NoDelayHttpToolsProtocol


def run(args: argparse.Namespace) -> int:
    """Start the workers and serve until interrupted."""
    try:
        import uvicorn

        from worldinfo.server.app import CONFIG_ENV, MiB, ServerConfig, token_hash
        from worldinfo.server.backends import open_storage
        from worldinfo.server.http import NoDelayH11Protocol
        from worldinfo.server.storage import StorageError
    except ImportError as exc:
        print(f"worldinfo serve: needs pip install 'worldinfo[server]' ({exc})", file=sys.stderr)
        return 2
    try:
        tokens = _tokens(args)
    except OSError as exc:
        print(f"worldinfo serve: {cannot_read(args.token_file, exc)}", file=sys.stderr)
        return 2
    if not _loopback(args.host) and not tokens:
        print(
            "worldinfo serve: a non-loopback --host needs a token (--token-file)", file=sys.stderr
        )
        return 2
    config = ServerConfig(
        database=args.db,
        token_hashes=tuple(token_hash(t) for t in tokens),
        max_body=int(args.max_body_mib * MiB),
        max_upload=int(args.max_upload_mib * MiB),
        threads=args.threads,
    )
    try:
        open_storage(args.db).close()  # create the schema once, report a bad --db early
    except StorageError as exc:
        print(f"worldinfo serve: {exc}", file=sys.stderr)
        return 1
    os.environ[CONFIG_ENV] = config.to_json()
    where = "PostgreSQL" if "://" in args.db else args.db
    url = f"http://{args.host}:{args.port}"
    if args.json:
        info = {"url": url, "workers": args.workers, "database": where, "token": bool(tokens)}
        print_json(info)
        sys.stdout.flush()
    print(
        f"worldinfo serve: {url} ({args.workers} worker(s), {where}, "
        f"{'bearer token' if tokens else 'no token'})",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.run(
        "worldinfo.server.app:app_from_env",
        factory=True,
        http=_protocol(NoDelayH11Protocol),
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="warning",
        timeout_keep_alive=KEEP_ALIVE_S,
        access_log=False,
    )
    return 0
