"""The server's device bridge: the hub wired to the database, the event hub and projects.

One ``DeviceBridge`` lives in the server's services (``server/api/services.py``). It verifies
device tokens against the database, records when devices were last seen, publishes session
events to the project's tabs and takes the tabs' device commands.
"""

import asyncio
import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy.engine import Engine
from sqlmodel import Session

from device_bridge import facts
from device_bridge import protocol as p
from device_bridge.errors import BridgeError, UnknownSession
from device_bridge.hub import DeviceHub, EventSink
from device_bridge.links import Identity, Limits
from device_bridge.links import Session as HubSession
from device_bridge.tab_commands import TabCommands
from device_bridge.transport import Transport
from server.core.error_codes import ErrorCode
from server.core.errors import NotFound, Unauthorized, Unavailable
from server.core.events import Envelope
from server.devices import service
from server.devices.agent_pyz import AgentBuild, build_agent
from server.devices.models import Device, DeviceSessionPublic
from server.projects.models import Project
from server.users import devices as sharing
from server.users.models import User

TAB_CHANNELS = ("devices", "dap", "log")


class Records(EventSink, Protocol):
    """The hub's event sink: passes every event on to the project's tabs and keeps what the flow
    needs of deploys and benchmarks (``server.flow.device_records.DeviceRecords``, handed in by
    ``create_app``: the flow sits above the devices, docs/architecture.md, "Layers")."""

    device_of: Callable[[str, str], str | None]

    def note_command(self, project_id: str, type_: str, data: dict[str, Any]) -> None: ...


class DeviceBridge:
    def __init__(self, engine: Engine, records: Records, limits: Limits | None = None) -> None:
        self._engine = engine
        self.agent = build_agent()
        self.records = records  # every event to the tabs; deploys and benchmarks, for the flow
        self.hub = DeviceHub(self.records, self._verify, limits, on_status=self._on_status,
                             agent_sha256=self.agent.sha256)
        self.records.device_of = self._device_of
        self.commands = TabCommands(self.hub, self._project_root, self._may_attach)

    async def serve(self, transport: Transport) -> None:
        await self.hub.serve(transport)

    async def handle_tab_command(self, project_id: str, envelope: Envelope) -> None:
        """A tab's command on channel ``devices``, ``dap`` or ``log`` (see docs/protocol.md)."""
        self.records.note_command(project_id, envelope.type, envelope.data)
        await self.commands.handle(project_id, envelope.type, envelope.data)

    def _device_of(self, project_id: str, sid: str) -> str | None:
        with contextlib.suppress(UnknownSession):
            return self.hub.session(project_id, sid).device_id
        return None

    def is_online(self, device_id: str) -> bool:
        return self.hub.is_online(device_id)

    async def _verify(self, hello: p.Hello) -> Identity | None:
        def check() -> Identity | None:
            with Session(self._engine) as session:
                return service.verify_token(session, hello.token, hello.device)

        return await asyncio.to_thread(check)

    def _on_status(self, device_id: str, online: bool, info: p.DeviceInfo) -> None:
        seen = info.model_dump()
        if online and info.time is not None:
            # the device's clock against ours, taken as its hello arrives
            seen["clock_skew"] = round(info.time - time.time(), 1)

        def record() -> None:
            with Session(self._engine) as session:
                service.record_seen(session, device_id, seen)

        asyncio.get_running_loop().run_in_executor(None, record)

    async def close(self) -> None:
        await self.hub.close()

    def agent_download(self, session: Session, token: str) -> AgentBuild:
        """The agent zipapp, for a device token or a pairing code that is still valid."""
        if not service.may_download_agent(session, token):
            raise Unauthorized("the agent download needs a valid pairing code or device token",
                               code=ErrorCode.BAD_TOKEN)
        return self.agent

    async def _may_attach(self, project_id: str, device_id: str) -> bool:
        """A project may use the devices its owner may use."""

        def check() -> bool:
            with Session(self._engine) as session:
                project = session.get(Project, project_id)
                device = session.get(Device, device_id)
                owner = session.get(User, project.owner_id) if project else None
                return owner is not None and device is not None and (
                    sharing.may_use_device(session, owner, device))

        return await asyncio.to_thread(check)

    async def _project_root(self, project_id: str) -> Path:
        def lookup() -> Path:
            with Session(self._engine) as session:
                project = session.get(Project, project_id)
                if project is None:
                    raise UnknownSession("the project is gone")
                return Path(project.path)

        return await asyncio.to_thread(lookup)

    async def attach(self, project_id: str, device_id: str) -> HubSession:
        """The project's session on a device its owner may use (opened if need be)."""
        if not await self._may_attach(project_id, device_id):
            raise NotFound("no such device", code=ErrorCode.DEVICE_NOT_FOUND)
        try:
            return await self.hub.open_session(project_id, device_id)
        except BridgeError as exc:
            raise app_error(exc) from exc

    async def open_session(self, project_id: str, device_id: str) -> DeviceSessionPublic:
        try:
            session = await self.hub.open_session(project_id, device_id)
        except BridgeError as exc:
            raise app_error(exc) from exc
        return DeviceSessionPublic(**session.view())

    async def close_session(self, project_id: str, sid: str) -> None:
        try:
            await self.hub.close_session(project_id, sid)
        except BridgeError as exc:
            raise app_error(exc) from exc

    def sessions(self, project_id: str) -> list[DeviceSessionPublic]:
        return [DeviceSessionPublic(**s.view()) for s in self.hub.sessions(project_id)]

    async def refresh_facts(self, device_id: str) -> None:
        """Ask the device's agent to probe its device again; the facts come as an event."""
        try:
            await facts.ask(self.hub, device_id)
        except BridgeError as exc:
            raise app_error(exc) from exc

    async def revoke(self, device_id: str) -> None:
        await self.hub.disconnect(device_id, p.Close.REVOKED, "device removed")

    async def end_unshared(self, user_id: str, device_id: str) -> set[str]:
        """A device is no longer shared with a user: end its sessions that no one's right keeps
        (``service.sessions_left_without_right``); the projects whose session ended."""
        held = {s.project_id: s.sid for s in self.hub.sessions() if s.device_id == device_id}

        def check() -> set[str]:
            with Session(self._engine) as session:
                return service.sessions_left_without_right(session, user_id, device_id, held)

        ended = await asyncio.to_thread(check)
        for project_id in ended:
            with contextlib.suppress(UnknownSession):  # closed meanwhile
                await self.hub.close_session(project_id, held[project_id])
        return ended


def app_error(exc: BridgeError) -> Exception:
    if isinstance(exc, UnknownSession):
        return NotFound(exc.message, code=exc.code)
    return Unavailable(exc.message, code=exc.code)


def install(tab_commands: dict[str, Any], engine: Engine, records: Records,
            limits: Limits | None = None) -> DeviceBridge:
    """Create the bridge and take the tabs' device channels in ``tab_commands``."""
    bridge = DeviceBridge(engine, records, limits)
    for channel in TAB_CHANNELS:
        tab_commands[channel] = bridge.handle_tab_command
    return bridge
