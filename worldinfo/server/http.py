"""uvicorn's HTTP protocols with ``TCP_NODELAY`` on every connection.

With ``--workers`` above 1 uvicorn binds the listening socket itself, with protocol number 0,
and asyncio then leaves Nagle's algorithm on for the connections it accepts: a response
written as two segments waits for the client's delayed ACK, about 40 ms per request.

``protocol()`` picks httptools' C parser when it is installed (the ``server`` extra brings
it; it parses a request in a third of h11's time), else h11.
"""

from __future__ import annotations

import asyncio
import logging
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)


def _no_delay(transport: asyncio.BaseTransport) -> None:
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            log.debug("TCP_NODELAY not set", exc_info=True)


class NoDelayH11Protocol(H11Protocol):
    """``H11Protocol`` that switches Nagle's algorithm off before serving a connection."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Set ``TCP_NODELAY`` on the connection's socket, then serve it as usual."""
        _no_delay(transport)
        super().connection_made(transport)


def protocol() -> type[asyncio.Protocol]:
    """The HTTP protocol class to serve with: httptools' if installed, else h11's."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        return NoDelayH11Protocol

    class NoDelayHttpToolsProtocol(HttpToolsProtocol):
        """``HttpToolsProtocol`` that switches Nagle's algorithm off first."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            """Set ``TCP_NODELAY`` on the connection's socket, then serve it as usual."""
            _no_delay(transport)
            super().connection_made(transport)

    return NoDelayHttpToolsProtocol
