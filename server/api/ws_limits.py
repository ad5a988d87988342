"""Websocket message limits, enforced by the protocol layer before a frame is buffered.

The websocket library reads a frame's declared length from its header and refuses (close 1009)
anything over the limit before reading the payload, so an oversized message never sits in
memory. uvicorn has one limit for every socket; ``BoundedWebSockets`` narrows it per socket once
the handshake names the path: a tab gets ``TAB_MAX_BYTES``, a device agent
``DEVICE_MAX_BYTES``, and any other path the smaller of the two.
"""

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request

from device_bridge.wire import MAX_MESSAGE_BYTES, WS_PATH

# A tab sends commands and pongs, never files.
TAB_MAX_BYTES = 1024 * 1024
# An agent's largest message is a file chunk or a log batch; the hub refuses anything larger.
DEVICE_MAX_BYTES = MAX_MESSAGE_BYTES


def limit_for(path: str) -> int:
    """The largest message the socket at ``path`` (with its query) may receive."""
    return DEVICE_MAX_BYTES if path.partition("?")[0] == WS_PATH else TAB_MAX_BYTES


class BoundedWebSockets(WebSocketsSansIOProtocol):
    """uvicorn's websocket protocol with the message limit of the socket's path."""

    def handle_connect(self, event: Request) -> None:
        self.conn.max_message_size = limit_for(event.path)
        super().handle_connect(event)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        # The websocket state machine holds its parser, a generator whose frame holds the state
        # machine, and the error that ended the parser, whose traceback holds that frame: cycles
        # that keep the connection and its read buffer alive until a full collection, which
        # rarely comes once start-up objects are frozen. Break them as the connection ends.
        self.conn.parser.close()
        error, self.conn.parser_exc = self.conn.parser_exc, None
        if error is not None:
            error.__traceback__ = None


def uvicorn_options() -> dict[str, Any]:
    """The ``uvicorn.Config`` options every server of the workbench runs with.

    No ``permessage-deflate``: compressing every event once per tab was a seventh of the
    server's busy time with 200 people on it (docs/performance.md, "A team on one server"),
    while its messages are small and travel over loopback or a LAN; and no message is inflated
    on the way in."""
    return {"ws": BoundedWebSockets, "ws_max_size": max(TAB_MAX_BYTES, DEVICE_MAX_BYTES),
            "ws_per_message_deflate": False}
