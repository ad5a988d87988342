"""The hub's view of one device connection, so it runs on any websocket implementation."""

from typing import Protocol

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed


class TransportClosed(Exception):
    """The peer went away."""


class Transport(Protocol):
    async def receive(self) -> str | bytes:
        """The next frame; raises ``TransportClosed`` once the connection is gone."""
        ...

    async def send(self, frame: str | bytes) -> None: ...

    async def close(self, code: int, reason: str) -> None: ...


class WebsocketsTransport:
    """A ``websockets`` server connection as a ``Transport`` (tests and benchmarks)."""

    def __init__(self, ws: ServerConnection) -> None:
        self._ws = ws

    async def receive(self) -> str | bytes:
        try:
            return await self._ws.recv()
        except ConnectionClosed as exc:
            raise TransportClosed from exc

    async def send(self, frame: str | bytes) -> None:
        try:
            await self._ws.send(frame)
        except ConnectionClosed as exc:
            raise TransportClosed from exc

    async def close(self, code: int, reason: str) -> None:
        await self._ws.close(code, reason)
