"""One language server process per project, shared by every connection to it.

Each connection talks to the server as if it had it to itself: its request ids are renumbered on
the way in and restored on the way out; the first ``initialize`` is the one the server sees and
every later one gets its answer; ``shutdown`` and ``exit`` end only the connection; a document
is closed in the server when the last connection that opened it closes it or leaves. The
server's notifications (diagnostics) go to every connection, and its own requests are answered
with ``null`` here, as the web UI's client answers them. Writes to the server go through one
queue, so a connection never waits on another's.
"""

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from server.lsp.framing import frame, read_message

Message = dict[str, Any]
STOPPED = {"error": {"code": -32603, "message": "the language server stopped"}}


@dataclass(eq=False)
class Link:
    """One connection's side of a shared server: what it is sent (``None``: the server ended)
    and the documents it has open."""

    outbox: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    documents: set[str] = field(default_factory=set)

    def send(self, message: Message) -> None:
        self.outbox.put_nowait(json.dumps(message))


def _uri(message: Message) -> str:
    return str(message.get("params", {}).get("textDocument", {}).get("uri", ""))


class SharedLanguageServer:
    def __init__(self, process: asyncio.subprocess.Process,
                 on_exit: Callable[["SharedLanguageServer"], None]) -> None:
        self.process = process
        self.links: set[Link] = set()
        self.ended = False
        self.expiry: asyncio.TimerHandle | None = None
        self._on_exit = on_exit
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[Link | None, Any]] = {}
        self._holders: dict[str, set[Link]] = {}
        self._initialize_id: int | None = None
        self._initialize_outcome: Message | None = None
        self._initialize_waiting: list[tuple[Link, Any]] = []
        self._told_initialized = False
        self._inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write_all())
        self._reader = asyncio.create_task(self._read_all())

    def connect(self) -> Link:
        if self.expiry is not None:
            self.expiry.cancel()
            self.expiry = None
        link = Link()
        self.links.add(link)
        return link

    def disconnect(self, link: Link) -> None:
        """The connection left: its documents close (where no one else has them open) and its
        requests are cancelled in the server."""
        self.links.discard(link)
        for uri in list(link.documents):
            self._release(link, uri)
        for server_id, (owner, _) in list(self._pending.items()):
            if owner is link:
                del self._pending[server_id]
                self._write({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": server_id}})

    async def from_client(self, link: Link, message: Message, settings: dict[str, object]) -> None:
        method = message.get("method")
        if method is None:
            return  # an answer to one of the server's requests: those are answered here
        if method == "initialize":
            self._initialize(link, message)
        elif method == "initialized":
            self._after_initialized(settings)
        elif method == "shutdown":
            link.send({"jsonrpc": "2.0", "id": message.get("id"), "result": None})
        elif method == "$/cancelRequest":
            self._cancel(link, message.get("params", {}).get("id"))
        elif "id" in message:
            server_id = next(self._ids)
            self._pending[server_id] = (link, message["id"])
            self._write({**message, "id": server_id})
        elif method == "textDocument/didOpen":
            self._holders.setdefault(_uri(message), set()).add(link)
            link.documents.add(_uri(message))
            self._write(message)
        elif method == "textDocument/didClose":
            self._release(link, _uri(message))
        elif method != "exit":
            self._write(message)

    def _initialize(self, link: Link, message: Message) -> None:
        """Answered when the server's own answer comes, never awaited here: a connection that
        leaves while the server is still starting is not held up by it."""
        self._initialize_waiting.append((link, message.get("id")))
        if self._initialize_outcome is not None:
            self._answer_initialize(self._initialize_outcome)
        elif self._initialize_id is None:
            self._initialize_id = next(self._ids)
            self._write({**message, "id": self._initialize_id})

    def _answer_initialize(self, outcome: Message) -> None:
        self._initialize_outcome = outcome
        waiting, self._initialize_waiting = self._initialize_waiting, []
        for link, request_id in waiting:
            if link in self.links:
                link.send({"jsonrpc": "2.0", "id": request_id, **outcome})

    def _after_initialized(self, settings: dict[str, object]) -> None:
        if not self._told_initialized:
            self._told_initialized = True
            self._write({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        self._write({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                     "params": {"settings": settings}})

    def _cancel(self, link: Link, client_id: object) -> None:
        for server_id, (owner, original) in self._pending.items():
            if owner is link and original == client_id:
                self._write({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": server_id}})
                return

    def _release(self, link: Link, uri: str) -> None:
        link.documents.discard(uri)
        holders = self._holders.get(uri, set())
        holders.discard(link)
        if not holders:
            self._holders.pop(uri, None)
            self._write({"jsonrpc": "2.0", "method": "textDocument/didClose",
                         "params": {"textDocument": {"uri": uri}}})

    def _write(self, message: Message) -> None:
        if not self.ended:
            self._inbox.put_nowait(json.dumps(message).encode())

    async def _write_all(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        with contextlib.suppress(ConnectionError):
            while (body := await self._inbox.get()) is not None:
                stdin.write(frame(body))
                await stdin.drain()

    async def _read_all(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                try:
                    body = await read_message(stdout)
                except (ValueError, asyncio.IncompleteReadError):
                    body = None
                if body is None:
                    return
                self._dispatch(body)
        finally:
            self._end()

    def _dispatch(self, body: bytes) -> None:
        try:
            message = json.loads(body)
        except ValueError:
            return
        if not isinstance(message, dict):
            return
        if "method" not in message:
            self._answer(message)
        elif "id" in message:
            self._write({"jsonrpc": "2.0", "id": message["id"], "result": None})
        else:
            text = body.decode()
            for link in self.links:
                link.outbox.put_nowait(text)

    def _answer(self, message: Message) -> None:
        server_id = message.get("id")
        outcome: Message = {key: message[key] for key in ("result", "error") if key in message}
        if server_id == self._initialize_id and self._initialize_outcome is None:
            self._answer_initialize(outcome)
            return
        if not isinstance(server_id, int):
            return
        link, client_id = self._pending.pop(server_id, (None, None))
        if link is not None and link in self.links:
            link.send({"jsonrpc": "2.0", "id": client_id, **outcome})

    def _end(self) -> None:
        self.ended = True
        self._inbox.put_nowait(None)
        if self._initialize_outcome is None:
            self._answer_initialize(STOPPED)
        for link in self.links:
            link.outbox.put_nowait(None)
        self._on_exit(self)

    async def wait_closed(self) -> None:
        """Until the server's output has ended and its input is no longer written."""
        await asyncio.gather(self._reader, self._writer, return_exceptions=True)
