"""uvicorn's HTTP protocols with ``TCP_NODELAY`` on every connection.

With ``--workers`` above 1 uvicorn binds the listening socket itself, with protocol number 0,
and asyncio then leaves Nagle's algorithm on for the connections it accepts: a response
written as two segments waits for the client's delayed ACK, about 40 ms per request.

``worldinfo serve`` uses ``http_tools``' protocol (httptools' C parser) when httptools is
installed (the ``server`` extra brings it), else this module's h11 one.
"""

from __future__ import annotations

import asyncio
import logging
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)


def no_delay(transport: asyncio.BaseTransport) -> None:
    """Switch Nagle's algorithm off on a TCP connection's socket."""
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
        no_delay(transport)
        super().connection_made(transport)
