"""One websocket ↔ one language server process: JSON-RPC messages pass through unchanged.

The bridge adds two things: a first ``mnnwb/hello`` notification telling the client the
project's root URI, and the project's settings (its interpreter) sent to the server right after
the client's ``initialized``. The process ends with the socket.
"""

import asyncio
import contextlib
import json

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from server.lsp.framing import frame, read_message
from server.lsp.service import LanguageServerPlan

MAX_INCOMING = 8 * 1024 * 1024
STOP_GRACE_SECONDS = 2.0


class LanguageServerBridge:
    def __init__(self, websocket: WebSocket, plan: LanguageServerPlan) -> None:
        self.websocket = websocket
        self.plan = plan
        self.close_code = 1000
        self.close_reason = ""

    async def run(self, process: asyncio.subprocess.Process) -> None:
        hello = {"jsonrpc": "2.0", "method": "mnnwb/hello", "params": {"rootUri": self.plan.root_uri}}
        await self.websocket.send_text(json.dumps(hello))
        tasks = [asyncio.create_task(self.to_client(process)), asyncio.create_task(self.to_server(process))]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.shield(asyncio.gather(*tasks, return_exceptions=True))
            cleanup = asyncio.ensure_future(stop(process))
            try:
                await asyncio.shield(cleanup)
            except asyncio.CancelledError:
                await cleanup  # the pipes are closed before the handler gives up
                raise
            if self.websocket.application_state == WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await self.websocket.close(self.close_code, self.close_reason)

    async def to_client(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        while True:
            try:
                body = await read_message(process.stdout)
            except (ValueError, asyncio.IncompleteReadError):
                body = None
            if body is None:
                self.close_code, self.close_reason = 1011, "the language server stopped"
                return
            await self.websocket.send_text(body.decode())

    async def to_server(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None
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
            process.stdin.write(frame(text.encode()))
            if message.get("method") == "initialized":
                settings = {"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                            "params": {"settings": self.plan.settings}}
                process.stdin.write(frame(json.dumps(settings).encode()))
            await process.stdin.drain()


async def start(plan: LanguageServerPlan) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *plan.argv, cwd=plan.cwd, env=plan.env, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, start_new_session=True,
    )


async def stop(process: asyncio.subprocess.Process) -> None:
    """Ask the server to end, kill it after a grace period; its pipes are read to their end and
    closed either way."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
    try:
        await asyncio.wait_for(process.communicate(), STOP_GRACE_SECONDS)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.communicate()
