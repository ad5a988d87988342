"""The server side of the bridge: device connections, the registry, sessions and routing.

Framework-independent: a connection is any ``Transport``; tokens are checked by a verifier
callable; events for tabs (``device_bridge/tab_events.py``) go to a sink with ``EventHub.emit``'s
signature. Each device
connection is served by ``serve`` until it ends; a failure on one connection never touches
another. Per-tab flow control (perf coalesced, DAP and logs never dropped) is the sink's job.
"""

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel

from device_bridge import facts
from device_bridge import protocol as p
from device_bridge.errors import DeviceOffline, DeviceTimeout, UnknownSession
from device_bridge.links import Identity, Limits, Link, RateLimiter, Session, Verifier
from device_bridge.tab_events import (
    RELAYED,
    DeviceStatusEvent,
    PerfBatch,
    PerfSample,
    SessionStateEvent,
    TabEvent,
)
from device_bridge.tasks import first_of
from device_bridge.transport import Transport, TransportClosed

log = logging.getLogger(__name__)

HELLO_TIMEOUT = 10.0
PERF_BATCH_SECONDS = 0.01
CLOSE_TIMEOUT = 2.0


class EventSink(Protocol):
    def emit(self, project_id: str, event: TabEvent) -> Any: ...


class DeviceHub:
    def __init__(
        self,
        sink: EventSink,
        verify: Verifier,
        limits: Limits | None = None,
        on_status: Callable[[str, bool, p.DeviceInfo], Any] | None = None,
        agent_sha256: str | None = None,
    ) -> None:
        self.sink = sink
        self.limits = limits or Limits()
        self.agent_sha256 = agent_sha256  # announced in the welcome: agents update to it
        self._verify = verify
        self._on_status = on_status
        self._links: dict[str, Link] = {}
        self._sessions: dict[str, Session] = {}

    # ---- registry -------------------------------------------------------------------------

    def is_online(self, device_id: str) -> bool:
        return device_id in self._links

    def online_devices(self) -> dict[str, p.DeviceInfo]:
        return {did: link.info for did, link in self._links.items()}

    def link_of(self, device_id: str) -> Link | None:
        return self._links.get(device_id)

    def report_status(self, device_id: str, online: bool, info: p.DeviceInfo) -> None:
        if self._on_status is not None:
            self._on_status(device_id, online, info)

    def sessions(self, project_id: str | None = None) -> list[Session]:
        return [s for s in self._sessions.values() if project_id in (None, s.project_id)]

    def session(self, project_id: str, sid: str) -> Session:
        found = self._sessions.get(sid)
        if found is None or found.project_id != project_id or found.state == "closed":
            raise UnknownSession(f"no session {sid} in this project")
        return found

    def link_for(self, session: Session) -> Link:
        link = self._links.get(session.device_id)
        if link is None or session.state != "open":
            raise DeviceOffline("the device of this session is offline")
        return link

    # ---- tab side -------------------------------------------------------------------------

    async def open_session(self, project_id: str, device_id: str) -> Session:
        """The project's session on the device, opened if there is none."""
        link = self._links.get(device_id)
        if link is None:
            raise DeviceOffline("the device is offline")
        for existing in self._sessions.values():
            same = existing.project_id == project_id and existing.device_id == device_id
            if same and existing.state != "closed":
                self._announce(existing)  # a tab that attaches learns the sid this way
                return existing
        session = Session(sid=secrets.token_hex(8), project_id=project_id, device_id=device_id)
        self._sessions[session.sid] = session
        await link.send(p.SessionOpen(sid=session.sid, project=project_id))
        self._announce(session)
        return session

    async def close_session(self, project_id: str, sid: str) -> None:
        session = self.session(project_id, sid)
        link = self._links.get(session.device_id)
        session.state = "closed"
        session.fail_waiters(UnknownSession("the session was closed"))
        del self._sessions[sid]
        if link is not None:
            try:
                await link.send(p.SessionClose(sid=sid))
            except DeviceOffline:
                log.info("device left while closing session %s", sid)
        self._announce(session)

    async def send(self, project_id: str, message: BaseModel) -> None:
        """Forward a command (with a ``sid``) from a tab to its session's device."""
        session = self.session(project_id, message.sid)  # type: ignore[attr-defined]
        await self.link_for(session).send(message)

    async def request(self, session: Session, message: BaseModel | bytes, reply: str) -> Any:
        """Send and wait for the device's reply of type ``reply`` on the same session."""
        waiter = session.expect(reply)
        await self.link_for(session).send(message)
        try:
            return await asyncio.wait_for(waiter, self.limits.reply_timeout)
        except TimeoutError as exc:
            raise DeviceTimeout(f"the device did not answer {reply} in time") from exc

    async def disconnect(self, device_id: str, code: int, reason: str) -> None:
        """Close a device's connection (revocation); its sessions become lost."""
        link = self._links.get(device_id)
        if link is not None:
            await self._close(link.transport, code, reason)

    async def close(self) -> None:
        """Close every device connection (server shutdown); agents reconnect later."""
        for link in list(self._links.values()):
            await self._close(link.transport, p.Close.GOING_AWAY, "server shutting down")

    def _announce(self, session: Session, reason: str = "") -> None:
        self.sink.emit(session.project_id, SessionStateEvent(**session.view(), reason=reason))

    # ---- device side ----------------------------------------------------------------------

    async def serve(self, transport: Transport) -> None:
        """Serve one device connection from its hello to its end."""
        link = await self._handshake(transport)
        if link is None:
            return
        try:
            outcome = await first_of(self._read_loop(link), self._ping_loop(link))
        finally:
            self._forget(link)
        if outcome is not None:
            await self._close(transport, *outcome)

    async def _close(self, transport: Transport, code: int, reason: str) -> None:
        reason = reason.encode()[:120].decode(errors="ignore")  # a close frame holds 123 bytes
        try:
            await asyncio.wait_for(transport.close(code, reason), CLOSE_TIMEOUT)
        except (TimeoutError, TransportClosed, RuntimeError, OSError):
            log.info("device connection ended while closing (%s)", code)

    async def _handshake(self, transport: Transport) -> Link | None:
        try:
            first = await asyncio.wait_for(transport.receive(), HELLO_TIMEOUT)
        except (TimeoutError, TransportClosed):
            await self._close(transport, p.Close.MALFORMED, "no hello")
            return None
        try:
            hello = self._parse_hello(first)
        except p.ProtocolError as exc:
            await self._close(transport, exc.code, exc.reason)
            return None
        identity = await self._verify(hello)
        if identity is None:
            await self._close(transport, p.Close.BAD_TOKEN, "bad token")
            return None
        link = await self._register(Link(identity, hello.device, transport), identity)
        if link is not None:
            await self._close_stale(link, hello.sessions)
        return link

    async def _close_stale(self, link: Link, held: list[str]) -> None:
        """Sessions the agent still holds but the hub has forgotten (a server restart, a tab
        that closed meanwhile) are closed, so their programs do not run on unowned."""
        for sid in held:
            session = self._sessions.get(sid)
            if session is None or session.device_id != link.device_id:
                try:
                    await link.send(p.SessionClose(sid=sid))
                except DeviceOffline:
                    return

    def _parse_hello(self, frame: str | bytes) -> p.Hello:
        if len(frame) > self.limits.max_message_bytes:
            raise p.ProtocolError(p.Close.OVERSIZED, "message too big")
        try:
            raw = json.loads(frame)
        except ValueError as exc:
            raise p.ProtocolError(p.Close.MALFORMED, "hello is not JSON") from exc
        if not isinstance(raw, dict) or raw.get("type") != "hello":
            raise p.ProtocolError(p.Close.MALFORMED, "the first message must be hello")
        if raw.get("protocol") != p.PROTOCOL_VERSION:
            raise p.ProtocolError(p.Close.PROTOCOL_MISMATCH,
                                  f"protocol {p.PROTOCOL_VERSION} required")
        message = p.parse_device_message(frame)
        assert isinstance(message, p.Hello)
        return message

    async def _register(self, link: Link, identity: Identity) -> Link | None:
        previous = self._links.get(link.device_id)
        self._links[link.device_id] = link
        if previous is not None:
            await self._close(previous.transport, p.Close.REPLACED, "replaced by a new connection")
        try:
            await link.send(p.Welcome(device_id=link.device_id, name=link.name,
                                      token=identity.token,
                                      ping_interval=self.limits.ping_interval,
                                      max_message_bytes=self.limits.max_message_bytes,
                                      agent_sha256=self.agent_sha256))
            for session in self.sessions():
                if session.device_id == link.device_id and session.state != "closed":
                    await link.send(p.SessionOpen(sid=session.sid, project=session.project_id))
                    session.state = "open"
                    self._announce(session, "reconnected")
        except DeviceOffline:
            self._forget(link)
            return None
        self._status(link, True)
        return link

    def _forget(self, link: Link) -> None:
        if self._links.get(link.device_id) is not link:
            return
        del self._links[link.device_id]
        for session in self.sessions():
            if session.device_id == link.device_id and session.state == "open":
                session.state = "lost"
                session.fail_waiters(DeviceOffline("the device went offline"))
                self._announce(session, "device disconnected")
        self._status(link, False)

    def _status(self, link: Link, online: bool) -> None:
        self.report_status(link.device_id, online, link.info)
        projects = {s.project_id for s in self.sessions() if s.device_id == link.device_id}
        for project_id in projects:
            self.sink.emit(project_id, DeviceStatusEvent(device_id=link.device_id, online=online))

    async def _ping_loop(self, link: Link) -> tuple[int, str]:
        while True:
            await asyncio.sleep(self.limits.ping_interval)
            if time.monotonic() - link.last_seen > self.limits.ping_timeout:
                return p.Close.PING_TIMEOUT, "ping timeout"
            try:
                await link.send(p.Ping(t=time.time()))
            except DeviceOffline:
                return p.Close.GOING_AWAY, "gone"

    async def _read_loop(self, link: Link) -> tuple[int, str] | None:
        limiter = RateLimiter(self.limits.rate, self.limits.burst)
        while True:
            try:
                frame = await link.transport.receive()
            except TransportClosed:
                return None
            link.last_seen = time.monotonic()
            if not limiter.allow():
                return p.Close.RATE_LIMITED, "rate limit exceeded"
            if len(frame) > self.limits.max_message_bytes:
                return p.Close.OVERSIZED, "message too big"
            if isinstance(frame, bytes):
                return p.Close.MALFORMED, "devices send no binary frames"
            try:
                self._route(link, p.parse_device_message(frame))
            except p.ProtocolError as exc:
                return exc.code, exc.reason
            # a transport with frames queued returns without suspending; let the tabs' senders run
            await asyncio.sleep(0)

    def _route(self, link: Link, message: Any) -> None:
        if isinstance(message, p.Pong):
            return
        if isinstance(message, p.Hello):
            raise p.ProtocolError(p.Close.MALFORMED, "unexpected hello")
        if isinstance(message, p.DeviceFacts):
            facts.received(self, link, message)
            return
        session = self._sessions.get(message.sid) if message.sid else None
        if session is None or session.device_id != link.device_id:
            log.info("device %s: %s for no session of its own", link.device_id, message.type)
            return
        if isinstance(message, p.SyncNeed | p.SyncDone):
            session.resolve(message.type, message)
            return
        rid = getattr(message, "rid", None)
        if rid is not None:
            # the answer to one of the server's own requests goes to it, not to the tabs
            stream = session.streams.get(rid)
            if stream is not None:
                stream.put_nowait(message)
            return
        if isinstance(message, p.Perf):
            self._batch_perf(session, message)
            return
        # the message's own fields (``from_attributes``: the fastest way in pydantic, ~2 µs)
        event = RELAYED[message.type].model_validate(message, from_attributes=True)
        self.sink.emit(session.project_id, event)

    def _batch_perf(self, session: Session, message: p.Perf) -> None:
        """Samples within a short window go to the tabs as one event: a tab costs one send per
        batch instead of one per sample, which is what lets ten tabs follow 1,000 samples/s."""
        if not session.perf:
            asyncio.get_running_loop().call_later(PERF_BATCH_SECONDS, self._flush_perf, session)
        session.perf.append(PerfSample.model_validate(message, from_attributes=True))

    def _flush_perf(self, session: Session) -> None:
        samples, session.perf = session.perf, []
        if samples:
            self.sink.emit(session.project_id, PerfBatch(sid=session.sid, samples=samples))
