"""One websocket attached to one terminal: output out, keystrokes and sizes in. Several sockets
may be attached to one terminal (the same person's tabs of a project): each sees all of it.

The socket only detaches when it drops (the terminal keeps running for a reload); a ``close``
message ends the terminal. Bad input closes the socket with 1003, an oversized frame with 1009,
its owner's access taken away with 1008 (and the terminal ends).
"""

import asyncio
import contextlib
import json

from pydantic import ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from device_bridge.tasks import first_of
from server.terminal.manager import Revoked, SinkItem, Terminal, TerminalManager
from server.terminal.models import Close, Exited, Hello, Input, Output, client_message
from server.users.connections import CLOSE_CODE

MAX_FRAME = 256 * 1024


class TerminalConnection:
    def __init__(self, websocket: WebSocket, manager: TerminalManager, terminal: Terminal) -> None:
        self.websocket = websocket
        self.manager = manager
        self.terminal = terminal
        self.close_code = 1000
        self.close_reason = ""

    async def run(self, created: bool) -> None:
        backlog, sink = self.manager.attach(self.terminal)
        await self.websocket.send_text(Hello(id=self.terminal.id, created=created).model_dump_json())
        if backlog:
            await self.websocket.send_text(Output(data=backlog).model_dump_json())
        try:
            with contextlib.suppress(Exception):  # a loop's error ends the socket as its end does
                await first_of(self.sender(sink), self.receiver())
        finally:
            # Detach before any other await: a cancelled handler (the server or a test client
            # ending the socket) is cancelled again at its next await, and the shell must expire.
            self.manager.detach(self.terminal, sink)
            if self.websocket.application_state == WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await self.websocket.close(self.close_code, self.close_reason)

    async def sender(self, sink: asyncio.Queue[SinkItem]) -> None:
        while True:
            items = [await sink.get()]
            while not sink.empty():
                items.append(sink.get_nowait())
            revoked = next((item for item in items if isinstance(item, Revoked)), None)
            if revoked is not None:  # nothing more is shown: the output after it is not theirs
                items = items[:items.index(revoked)]
            # Output first, in one frame; an exit code is always queued last.
            text = "".join(item for item in items if isinstance(item, str))
            if text:
                await self.websocket.send_text(Output(data=text).model_dump_json())
            self.terminal.resume_reading()
            if revoked is not None:
                self.close_code, self.close_reason = CLOSE_CODE, revoked.reason
                return
            end = items[-1]
            if isinstance(end, int):
                await self.websocket.send_text(Exited(code=end).model_dump_json())
                return

    async def receiver(self) -> None:
        pty = self.terminal.pty
        assert pty is not None
        while True:
            try:
                text = await self.websocket.receive_text()
            except (WebSocketDisconnect, RuntimeError, KeyError):
                return
            if len(text) > MAX_FRAME:
                self.close_code, self.close_reason = 1009, "message too big"
                return
            try:
                message = client_message.validate_python(json.loads(text))
            except (ValueError, ValidationError):
                self.close_code, self.close_reason = 1003, "malformed message"
                return
            if isinstance(message, Input):
                if not self.terminal.ended:  # a revoked terminal takes no more keys
                    pty.write(message.data)
            elif isinstance(message, Close):
                self.manager.close_soon(self.terminal)
                return
            else:
                pty.resize(message.cols, message.rows)
