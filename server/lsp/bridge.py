"""One websocket ↔ the project's shared language server (``server/lsp/shared.py``).

The bridge adds a first ``mnnwb/hello`` notification telling the client the project's root URI,
and checks every frame is a JSON-RPC 2.0 object before the shared server sees it. Leaving
detaches the connection; the process itself is the manager's business.
"""

import asyncio
import contextlib
import json

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from device_bridge.tasks import first_of
from server.lsp.manager import LanguageServers
from server.lsp.service import LanguageServerPlan
from server.lsp.shared import Link, SharedLanguageServer

MAX_INCOMING = 8 * 1024 * 1024


class LanguageServerBridge:
    def __init__(self, websocket: WebSocket, plan: LanguageServerPlan, project_id: str) -> None:
        self.websocket = websocket
        self.plan = plan
        self.project_id = project_id
        self.close_code = 1000
        self.close_reason = ""
        self._stopped = asyncio.Event()

    def stop(self, code: int, reason: str) -> None:
        """End the connection from outside (access taken away); the socket closes with ``code``."""
        self.close_code, self.close_reason = code, reason
        self._stopped.set()

    async def run(self, servers: LanguageServers) -> None:
        server, link = await servers.attach(self.project_id, self.plan)
        try:
            with contextlib.suppress(Exception):  # a loop's error ends the socket as its end does
                await first_of(self.to_client(link), self.to_server(server, link), self._stopped.wait())
        finally:
            servers.detach(self.project_id, server, link)
            if self.websocket.application_state == WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await self.websocket.close(self.close_code, self.close_reason)

    async def to_client(self, link: Link) -> None:
        hello = {"jsonrpc": "2.0", "method": "mnnwb/hello", "params": {"rootUri": self.plan.root_uri}}
        await self.websocket.send_text(json.dumps(hello))
        while (text := await link.outbox.get()) is not None:
            await self.websocket.send_text(text)
        self.close_code, self.close_reason = 1011, "the language server stopped"

    async def to_server(self, server: SharedLanguageServer, link: Link) -> None:
        while True:
            try:
                text = await self.websocket.receive_text()
            except (WebSocketDisconnect, RuntimeError, KeyError):
                return
            if len(text) > MAX_INCOMING:
                self.close_code, self.close_reason = 1009, "message too big"
                return
            try:
                message = json.loads(text)
            except ValueError:
                message = None
            if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
                self.close_code, self.close_reason = 1003, "not a JSON-RPC 2.0 message"
                return
            await server.from_client(link, message, self.plan.settings)
