"""uvicorn's httptools protocol with ``TCP_NODELAY`` (see ``http``); needs httptools.

A module of its own so that it imports only where httptools is installed, and so that
uvicorn can pickle the class by name for its worker processes.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from worldinfo.server.http import no_delay


class NoDelayHttpToolsProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` that switches Nagle's algorithm off before serving."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Set ``TCP_NODELAY`` on the connection's socket, then serve it as usual."""
        no_delay(transport)
        super().connection_made(transport)
