"""The device websocket ``/bridge/v1/device``: agents dial in here (docs/protocol.md).

The endpoint only adapts Starlette's socket to the hub's ``Transport``; authentication happens
in-protocol with the first message (``hello``), so the security middleware leaves this path open.
"""

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from device_bridge.protocol import WS_PATH
from device_bridge.transport import TransportClosed
from server.api.services import services_of

router = APIRouter()


class StarletteTransport:
    def __init__(self, websocket: WebSocket) -> None:
        self._ws = websocket

    async def receive(self) -> str | bytes:
        try:
            message = await self._ws.receive()
        except (WebSocketDisconnect, RuntimeError) as exc:
            raise TransportClosed from exc
        if message["type"] == "websocket.disconnect":
            raise TransportClosed
        if message.get("text") is not None:
            return str(message["text"])
        return bytes(message.get("bytes") or b"")

    async def send(self, frame: str | bytes) -> None:
        try:
            if isinstance(frame, str):
                await self._ws.send_text(frame)
            else:
                await self._ws.send_bytes(frame)
        except (WebSocketDisconnect, RuntimeError, OSError) as exc:
            raise TransportClosed from exc

    async def close(self, code: int, reason: str) -> None:
        try:
            await self._ws.close(code, reason)
        except RuntimeError as exc:
            raise TransportClosed from exc


@router.websocket(WS_PATH)
async def device_socket(websocket: WebSocket) -> None:
    bridge = services_of(websocket.app).devices
    await websocket.accept()
    await bridge.serve(StarletteTransport(websocket))
