"""Relay of Debug Adapter Protocol messages between the hub and debugpy's TCP socket."""

import asyncio
import json
import socket
from collections.abc import Callable
from typing import Any

CONNECT_TIMEOUT = 30.0
TERMINATED_GRACE = 2.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def frame(msg: dict[str, Any]) -> bytes:
    body = json.dumps(msg, separators=(",", ":")).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any]:
    """One DAP message: ``Content-Length`` headers, a blank line, the JSON body."""
    length = None
    while True:
        line = (await reader.readuntil(b"\r\n")).strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    if length is None:
        raise ValueError("DAP message without Content-Length")
    return json.loads(await reader.readexactly(length))


class DapRelay:
    """Connects to debugpy (retrying while it starts) and pumps messages both ways.

    Messages from the client that arrive before the connection is up are queued, so a client can
    send ``initialize`` right after ``run.started``.
    """

    def __init__(self, port: int, on_message: Callable[[dict[str, Any]], None]) -> None:
        self.port = port
        self._on_message = on_message
        self._pending: list[dict[str, Any]] = []
        self._writer: asyncio.StreamWriter | None = None

    async def run(self, alive: Callable[[], bool]) -> None:
        reader = await self._connect(alive)
        if reader is None:
            return
        try:
            while True:
                msg = await read_message(reader)
                self._on_message(msg)
                if msg.get("type") == "event" and msg.get("event") == "terminated":
                    # a client that vanished never sends disconnect; the debuggee would wait
                    asyncio.get_running_loop().call_later(TERMINATED_GRACE, self.close)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            return
        finally:
            self.close()

    async def _connect(self, alive: Callable[[], bool]) -> asyncio.StreamReader | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CONNECT_TIMEOUT
        while alive() and loop.time() < deadline:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                await asyncio.sleep(0.1)
                continue
            self._writer = writer
            for msg in self._pending:
                writer.write(frame(msg))
            self._pending.clear()
            return reader
        return None

    def send(self, msg: dict[str, Any]) -> None:
        if self._writer is None:
            self._pending.append(msg)
        elif not self._writer.is_closing():
            self._writer.write(frame(msg))

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
