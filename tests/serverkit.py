"""Test helpers for the server: fresh databases on both backends, a real server process.

PostgreSQL tests need ``WORLDINFO_TEST_PG_DSN`` (``.ci/run`` starts a server and sets it;
``bash scripts/pg-test-server start DIR`` does it by hand); without it they skip.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Self
from urllib.parse import urlsplit, urlunsplit

import pytest

PG_ENV = "WORLDINFO_TEST_PG_DSN"
NO_PG = f"PostgreSQL tests need ${PG_ENV} (bash scripts/pg-test-server start DIR)"
BACKENDS = ["sqlite", "postgresql"]


def pg_dsn() -> str:
    """The admin DSN of the test PostgreSQL server, or skip."""
    dsn = os.environ.get(PG_ENV)
    if not dsn:
        pytest.skip(NO_PG)
    return dsn


@contextmanager
def fresh_pg_database() -> Iterator[str]:
    """A new, empty database on the test server; dropped afterwards. Yields its DSN."""
    psycopg = pytest.importorskip("psycopg")
    admin = pg_dsn()
    name = f"wi_test_{secrets.token_hex(6)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    parts = urlsplit(admin)
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextmanager
def database(kind: str, tmp_path: Path) -> Iterator[str]:
    """A fresh database URL of the given backend kind."""
    if kind == "sqlite":
        yield str(tmp_path / "serve.db")
        return
    with fresh_pg_database() as dsn:
        yield dsn


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class ServerProcess:
    """``worldinfo serve`` as a child process on a free loopback port."""

    def __init__(
        self,
        db: str,
        *,
        tmp_path: Path,
        workers: int = 1,
        tokens: Sequence[str] = (),
        extra: Sequence[str] = (),
    ) -> None:
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        args = ["--db", db, "--port", str(self.port), "--workers", str(workers), *extra]
        if tokens:
            token_file = tmp_path / f"tokens-{self.port}.txt"
            token_file.write_text("\n".join(tokens) + "\n", encoding="utf-8")
            args += ["--token-file", str(token_file)]
        self.log = tmp_path / f"serve-{self.port}.log"
        env = {k: v for k, v in os.environ.items() if k != "WORLDINFO_SERVE_TOKEN"}
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "worldinfo", "serve", *args],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        self._wait_ready()

    def _wait_ready(self, attempts: int = 600) -> None:
        import httpx

        for _ in range(attempts):  # 0.1 s apart: about a minute
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text(errors='replace')}")
            try:
                if httpx.get(self.url + "/v1/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not start: {self.log.read_text(errors='replace')}")

    def kill(self) -> None:
        """``kill -9`` the server's whole process group (supervisor and workers)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        """Stop it gracefully (SIGTERM), then force it."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
