"""The agent's connection to the hub: dial out, authenticate, dispatch, reconnect with backoff.

Sessions live on the agent, not on a connection: a program keeps running through a network
drop, its output waits in a bounded outbox, and the hub re-opens its sessions on reconnect.
"""

import asyncio
import random
import socket
import ssl
import sys
from collections import deque
from collections.abc import Coroutine
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import websockets
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from device_bridge import wire
from device_bridge.agent import packages, update
from device_bridge.agent.facts import Facts
from device_bridge.agent.session import Message, Session
from device_bridge.agent.state import AgentState, device_info
from device_bridge.wire import Close

OUTBOX_MAX = 20_000
FATAL = {
    Close.BAD_TOKEN: "the server refused this device's token (revoked or expired): "
    "pair the device again and start the agent with the new --token-file",
    Close.REVOKED: "this device was removed in the workbench: pair it again",
    Close.PROTOCOL_MISMATCH: "the server speaks another protocol version: update the agent",
    Close.REPLACED: "another agent connected as this device (a copied agent home folder?); "
    "stopping this one",
}


class FatalClose(Exception):
    pass


def bridge_url(server: str) -> str:
    """``http(s)://host[:port]`` or ``ws(s)://…`` → the device websocket URL."""
    parts = urlsplit(server if "://" in server else f"http://{server}")
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    path = parts.path.rstrip("/")
    if not path.endswith(wire.WS_PATH):
        path += wire.WS_PATH
    return urlunsplit((scheme, parts.netloc, path, "", ""))


def say(text: str) -> None:
    print(f"mnnwb-agent: {text}", file=sys.stderr, flush=True)


class Agent:
    def __init__(self, server: str, state: AgentState, code: str | None, name: str | None,
                 checks: list[dict[str, Any]] | None = None,
                 backends: list[dict[str, Any]] | None = None):
        self.url = bridge_url(server)
        self.state = state
        self._code = code
        self._name = name
        self._pyz = packages.agent_pyz()
        self._own_sha = update.file_sha256(self._pyz) if self._pyz else None
        self.facts = Facts(packages.lib_dir(state.home), checks or [], backends, self._device_info,
                           self.send)
        self.sessions: dict[str, Session] = {}
        self._outbox: deque[str | bytes] = deque()
        self._wake = asyncio.Event()
        self._background: set[asyncio.Task[None]] = set()

    def send(self, msg: Message) -> None:
        """Queue a message for the hub; perf samples are the first thing dropped when backed up."""
        if len(self._outbox) >= OUTBOX_MAX:
            if msg["type"] == "perf":
                return
            self._outbox.popleft()
        self._outbox.append(wire.dumps(msg))
        self._wake.set()

    async def shutdown(self) -> None:
        await asyncio.gather(*(s.close() for s in self.sessions.values()))

    async def run_forever(self, max_backoff: float = 30.0) -> int:
        delay = 0.5
        while True:
            try:
                await self._connect_once()
                delay = 0.5
            except FatalClose as exc:
                say(str(exc))
                return 2
            except (OSError, ConnectionClosed, TimeoutError, websockets.InvalidHandshake,
                    wire.WireError) as exc:
                say(f"cannot reach {self.url}: {describe(exc)}")
            wait = delay * (0.5 + random.random())
            say(f"reconnecting in {wait:.1f} s")
            await asyncio.sleep(wait)
            delay = min(max_backoff, delay * 2)

    async def _connect_once(self) -> None:
        token = self.state.token_for(self._code)
        if not token:
            raise FatalClose("no token: start the agent with --token-file FILE holding the "
                             "pairing code shown by the workbench's Devices panel")
        async with connect(self.url, max_size=2 * wire.MAX_MESSAGE_BYTES, open_timeout=10) as ws:
            info = self.facts.hello_info()
            await ws.send(wire.dumps({"type": "hello", "protocol": wire.PROTOCOL_VERSION,
                                      "token": token, "device": info,
                                      "sessions": list(self.sessions)}))
            welcome = await self._welcome(ws)
            if welcome["token"]:
                self.state.remember_token(welcome["token"], self._code)
            say(f"connected to {self.url} as {welcome['name']!r} "
                f"(device {welcome['device_id']})")
            await self._update_to(welcome["agent_sha256"])
            writer = asyncio.create_task(self._writer(ws))
            try:
                await self._reader(ws)
            finally:
                writer.cancel()
        say(f"connection closed ({ws.close_code} {ws.close_reason})")

    def _device_info(self, checks: list[dict[str, Any]],
                     backends: list[dict[str, Any]] | None) -> dict[str, Any]:
        return device_info(self.state.device_id, self._name, checks, self._own_sha, backends)

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        """Work that must not hold up the messages after it (a probe takes seconds)."""
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _update_to(self, announced: str | None) -> None:
        """Replace this zipapp by the workbench's build, verified, and restart; only while no
        project uses the device, so no program is cut off."""
        if not announced or self._pyz is None or announced == self._own_sha or self.sessions:
            return
        say(f"the workbench serves another agent build (sha256 {announced[:12]}…): updating")
        token = self.state.token_for(None) or ""
        try:
            data = await asyncio.to_thread(update.fetch, update.download_url(self.url), token)
            update.install(self._pyz, data, announced)
        except (OSError, update.UpdateRefused) as exc:
            say(f"update failed: {exc}")
            return
        say(f"updated {self._pyz}; restarting")
        update.restart(self._pyz)

    async def _welcome(self, ws: ClientConnection) -> Message:
        try:
            msg = wire.parse(await ws.recv())
        except ConnectionClosed as exc:
            if exc.rcvd is not None and exc.rcvd.code in FATAL:
                code, reason = exc.rcvd.code, exc.rcvd.reason
                raise FatalClose(f"{FATAL[code]} (close {code}: {reason})") from exc
            raise
        if msg["type"] != "welcome":
            raise FatalClose(f"expected welcome, got {msg['type']}")
        return msg

    async def _writer(self, ws: ClientConnection) -> None:
        """Send the outbox in order; a message leaves it only once sent."""
        self._wake.set()
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                while self._outbox:
                    await ws.send(self._outbox[0])
                    self._outbox.popleft()
        except ConnectionClosed:
            return

    async def _reader(self, ws: ClientConnection) -> None:
        try:
            async for frame in ws:
                if isinstance(frame, bytes):
                    header, payload = wire.unpack_chunk(frame)
                    message = {"type": "sync.chunk", "sid": str(header.get("sid"))}
                    await self._guarded(message, self._chunk(header, payload))
                    continue
                message = wire.parse(frame)
                await self._guarded(message, self.dispatch(message))
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd else None
            if code in FATAL:
                raise FatalClose(f"{FATAL[code]} (close {code})") from exc

    async def _chunk(self, header: Message, payload: bytes) -> None:
        session = self.sessions.get(str(header.get("sid")))
        if session is not None:
            session.chunk(header, payload)

    async def _guarded(self, msg: Message, handling: Coroutine[Any, Any, None]) -> None:
        """A failure to handle one message is reported to the hub; the agent carries on."""
        try:
            await handling
        except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
            say(f"failed to handle {msg['type']}: {type(exc).__name__}: {exc}")
            sid = msg.get("sid")
            self.send({"type": "error", "sid": sid if isinstance(sid, str) else None,
                       "code": "agent_error", "message": f"{type(exc).__name__}: {exc}"[:4000]})

    async def dispatch(self, msg: Message) -> None:
        kind = msg["type"]
        if kind == "ping":
            self.send({"type": "pong", "t": msg["t"]})
            self._in_background(self.facts.check())
        elif kind == "facts.refresh":
            self._in_background(self.facts.refresh("asked"))
        elif kind == "session.open":
            if msg["sid"] not in self.sessions:
                say(f"session {msg['sid']} opened for project {msg['project']}")
                self.sessions[msg["sid"]] = Session(msg["sid"], msg["project"],
                                                    self.state.sessions_dir, self.send)
        elif kind == "error":
            say(f"server error {msg['code']}: {msg['message']}")
        elif kind != "welcome":
            await self._to_session(msg)

    async def _to_session(self, msg: Message) -> None:
        session = self.sessions.get(msg["sid"])
        if session is None:
            self.send({"type": "error", "sid": msg["sid"], "code": "no_session",
                       "message": "unknown session"})
            return
        handlers: dict[str, Any] = {
            "session.close": self._close_session,
            "sync.manifest": session.manifest,
            "sync.done": session.sync_done,
            "run.start": session.run,
            "run.stop": session.stop,
            "run.stdin": session.stdin,
            "dap": session.dap,
            "bench.start": session.mnn_task,
            "watch.start": session.mnn_task,
            "pipeline.start": session.mnn_task,
            "pipeline.stop": session.pipeline_stop,
            "watch.continue": session.watch_continue,
            "watch.stop": session.watch_stop,
            "llm.chat": session.llm_start,
            "llm.bench": session.llm_start,
            "llm.stop": session.llm_stop,
        }
        outcome = handlers[msg["type"]](msg)
        if not asyncio.iscoroutine(outcome):
            return
        if msg["type"] in ("run.stop", "session.close"):
            # stopping waits for a grace period; other sessions' messages must not wait with it
            self._in_background(outcome)
        else:
            await outcome

    async def _close_session(self, msg: Message) -> None:
        session = self.sessions.pop(msg["sid"], None)
        if session is not None:
            await session.close()


def describe(exc: BaseException) -> str:
    """What went wrong, with the usual fix: a failed connection must never be a mystery."""
    if isinstance(exc, ConnectionClosed) and exc.rcvd:
        return f"closed by the server ({exc.rcvd.code} {exc.rcvd.reason})"
    if isinstance(exc, ConnectionRefusedError):
        return ("connection refused: is the workbench running on that address and port? "
                "(for a LAN start it with --host 0.0.0.0; over USB run "
                "'adb reverse tcp:PORT tcp:PORT' on the PC)")
    if isinstance(exc, socket.gaierror):
        return f"unknown host name ({exc.strerror}): check the --server address"
    if isinstance(exc, TimeoutError):
        return "timed out: check the address, that both are on the same network, and firewalls"
    if isinstance(exc, InvalidStatus):
        status = exc.response.status_code
        hint = HTTP_HINTS.get(status, "")
        return f"the server answered HTTP {status}{': ' + hint if hint else ''}"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed ({exc.reason}): use http:// unless the workbench serves HTTPS"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


HTTP_HINTS = {
    400: "the workbench refused this Host name; on the server add it to MNNWB_ALLOWED_HOSTS",
    403: "refused by the workbench's Origin check",
    404: "no device endpoint at this URL; is it the workbench, and is it up to date?",
}
