"""The websockets: per tab ``/api/projects/{pid}/ws?since=SEQ``, per user ``/api/ws`` (docs/api.md).

The endpoint authenticates (middleware + project access) and hands the socket to a
``TabConnection``, which runs three loops: send queued events, receive commands, ping. The socket
is held in the services' ``connections`` (``server/users/connections.py``): when the person's access is
taken away it closes with 1008 and the reason.
"""

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from functools import partial

from fastapi import APIRouter, WebSocket
from pydantic import ValidationError
from sqlalchemy.engine import Engine
from sqlmodel import Session
from starlette.websockets import WebSocketDisconnect, WebSocketState

from device_bridge.tasks import first_of
from server.api.events import SysDropped, SysError, SysHello, SysPing, SysResync, sys_message
from server.api.services import Services, services_of
from server.api.ws_limits import TAB_MAX_BYTES
from server.api.ws_refusal import refuse
from server.core.error_codes import ErrorCode
from server.core.errors import AppError
from server.core.events import PROTOCOL_VERSION, Envelope, EventHub, Subscription
from server.projects import service as projects
from server.projects.cloning import user_key
from server.projects.models import Project
from server.users.connections import CLOSE_CODE
from server.users.service import user_for_principal

router = APIRouter()
# Also enforced before buffering by the server's websocket protocol (``ws_limits``).
MAX_INCOMING_BYTES = TAB_MAX_BYTES
MISSED_PONGS_LIMIT = 2
CommandHandler = Callable[[str, Envelope], Awaitable[None]]


class TabConnection:
    """One browser tab's connection to one project's event stream."""

    def __init__(
        self, websocket: WebSocket, sub: Subscription, hub: EventHub, ping_interval: float,
        commands: dict[str, CommandHandler],
    ) -> None:
        self.websocket = websocket
        self.sub = sub
        self.hub = hub
        self.ping_interval = ping_interval
        self.commands = commands
        self.missed_pongs = 0
        self.close_code = 1000
        self.close_reason = ""
        self._stopped = asyncio.Event()

    async def run(self, replay_complete: bool) -> None:
        project_id = self.sub.project_id
        await self.send(sys_message(SysHello(seq=self.hub.current_seq(project_id), project=project_id)))
        if not replay_complete:
            await self.send(sys_message(SysResync()))
        try:
            with contextlib.suppress(Exception):  # a loop's error ends the socket as its end does
                await first_of(self.sender(), self.receiver(), self.pinger(), self._stopped.wait())
        finally:
            if self.websocket.application_state == WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await self.websocket.close(self.close_code, self.close_reason)

    def stop(self, code: int, reason: str) -> None:
        """End the connection from outside (access taken away); the socket closes with ``code``."""
        self.close_code, self.close_reason = code, reason
        self._stopped.set()

    async def send(self, envelope: Envelope) -> None:
        await self.websocket.send_text(envelope.text())

    async def sender(self) -> None:
        # A subscriber overflows only when its queue is full, so ``get`` never waits then: the
        # overflow is seen at the next event, as soon as the send before it returns.
        while True:
            event = await self.sub.queue.get()
            if self.sub.overflowed.is_set():
                self.close_code, self.close_reason = 1013, "too slow; resume with since="
                return
            await self.send(event)
            dropped = self.sub.take_dropped()
            if dropped:
                await self.send(sys_message(SysDropped(count=dropped)))

    async def receiver(self) -> None:
        while True:
            try:
                text = await self.websocket.receive_text()
            except (WebSocketDisconnect, RuntimeError, KeyError):
                return
            if len(text) > MAX_INCOMING_BYTES:
                self.close_code, self.close_reason = 1009, "message too big"
                return
            try:
                envelope = Envelope.model_validate(json.loads(text))
            except (ValueError, ValidationError):
                self.close_code, self.close_reason = 1003, "malformed message"
                return
            if envelope.v != PROTOCOL_VERSION:
                # A tab of another version would misread every later message: stop it here.
                self.close_code = 1002
                self.close_reason = f"unsupported protocol version; this server speaks v{PROTOCOL_VERSION}"
                return
            await self.dispatch(envelope)

    async def dispatch(self, envelope: Envelope) -> None:
        if envelope.channel == "sys":
            if envelope.type == "pong":
                self.missed_pongs = 0
            return
        handler = self.commands.get(envelope.channel)
        if handler is None:
            await self.send(sys_message(SysError(
                detail=f"no commands on channel {envelope.channel!r}", code=ErrorCode.UNKNOWN)))
            return
        await handler(self.sub.project_id, envelope)

    async def pinger(self) -> None:
        while True:
            await asyncio.sleep(self.ping_interval)
            if self.missed_pongs >= MISSED_PONGS_LIMIT:
                self.close_code, self.close_reason = 4000, "ping timeout"
                return
            self.missed_pongs += 1
            await self.send(sys_message(SysPing()))


def _principal(websocket: WebSocket) -> str | None:
    principal: str | None = websocket.scope.get("state", {}).get("principal")
    return principal


def _admit(session: Session, principal: str | None, pid: str, need: str) -> Project:
    return projects.get_project(session, user_for_principal(session, principal), pid, need)


def _project_for(engine: Engine, principal: str | None, pid: str) -> tuple[Project, bool, str]:
    """The project the caller may read, whether they may also send commands (run code), and
    the caller's user id."""
    # A plain short session: generator dependencies would stay open for the socket's lifetime.
    with Session(engine) as session:
        user = user_for_principal(session, principal)
        project = projects.get_project(session, user, pid, "read")
        return project, projects.allows(projects.role_of(session, user, project), "run"), user.id


def _commands(state: Services, user_id: str) -> dict[str, CommandHandler]:
    """The tab's command channels: the shared ones, and those that count per person (the
    playground's runs on this machine, capped per user), bound to the caller."""
    per_user = state.user_tab_commands
    return {**state.tab_commands, **{channel: make(user_id) for channel, make in per_user.items()}}


@router.websocket("/api/ws")
async def user_socket(websocket: WebSocket, since: int | None = None) -> None:
    """The caller's own channel: events about no one project (clones, see projects/cloning.py)."""
    state = services_of(websocket.app)
    principal = _principal(websocket)
    with Session(state.engine) as session:
        user = user_for_principal(session, principal)
    recheck = partial(user_for_principal, principal=principal)
    # Held before the first await, so no change slips in between (server/users/connections.py).
    with state.connections.holding(websocket.scope.get("state", {}), "user", None, recheck) as held:
        await websocket.accept()
        hub: EventHub = state.hub
        sub, complete = hub.subscribe(user_key(user.id), since)
        connection = TabConnection(websocket, sub, hub, state.settings.ws_ping_interval, {})
        held.close_with(partial(connection.stop, CLOSE_CODE))
        try:
            await connection.run(complete)
        finally:
            hub.unsubscribe(sub)


@router.websocket("/api/projects/{pid}/ws")
async def project_socket(websocket: WebSocket, pid: str, since: int | None = None) -> None:
    state = services_of(websocket.app)
    principal = _principal(websocket)
    try:
        project, may_run, user_id = _project_for(state.engine, principal, pid)
    except AppError as exc:
        await refuse(websocket, exc.detail)
        return
    # Viewers watch the stream; commands (debugger, stdin, device attach) need an editor.
    recheck = partial(_admit, principal=principal, pid=pid, need="run" if may_run else "read")
    with state.connections.holding(websocket.scope.get("state", {}), "tab", project.id, recheck) as held:
        await websocket.accept()
        hub: EventHub = state.hub
        sub, complete = hub.subscribe(project.id, since)
        state.watchers.acquire(project.id, project.path)
        commands = _commands(state, user_id) if may_run else {}
        connection = TabConnection(websocket, sub, hub, state.settings.ws_ping_interval, commands)
        held.close_with(partial(connection.stop, CLOSE_CODE))
        try:
            await connection.run(complete)
        finally:
            hub.unsubscribe(sub)
            state.watchers.release(project.id)
