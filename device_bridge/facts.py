"""A device's facts after its ``hello``: the hub asks an agent to probe its device again
(``facts.refresh``), and takes the ``device.facts`` an agent sends, asked or not, without the
device reconnecting (docs/protocol.md, "Fresh facts")."""

from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import BaseModel

from device_bridge import protocol as p
from device_bridge.errors import DeviceOffline
from device_bridge.tab_events import DeviceFactsEvent, TabEvent

# What of the hub these need, as protocols: the hub imports this module, not the other way
# round (docs/architecture.md, "Layers").


class _Sink(Protocol):
    def emit(self, project_id: str, event: TabEvent) -> Any: ...


class _Session(Protocol):
    @property
    def project_id(self) -> str: ...

    @property
    def device_id(self) -> str: ...


class Link(Protocol):
    """A device's connection: who it is, what it said it is, and a way to send it a message."""

    info: p.DeviceInfo

    @property
    def device_id(self) -> str: ...

    async def send(self, frame: BaseModel) -> None: ...


class DeviceHub(Protocol):
    """The device hub (``device_bridge.hub.DeviceHub``) as far as fresh facts go."""

    @property
    def sink(self) -> _Sink: ...

    def link_of(self, device_id: str) -> Link | None: ...

    def report_status(self, device_id: str, online: bool, info: p.DeviceInfo) -> None: ...

    def sessions(self) -> Sequence[_Session]: ...


async def ask(hub: DeviceHub, device_id: str) -> None:
    """Ask the device's agent for fresh facts; they arrive later as ``device.facts``."""
    link = hub.link_of(device_id)
    if link is None:
        raise DeviceOffline("the device is offline")
    await link.send(p.FactsRefresh())


def received(hub: DeviceHub, link: Link, message: p.DeviceFacts) -> None:
    """The facts replace the hello's; they are recorded like a hello's (``on_status``) and the
    projects with a session on the device hear of them as ``devices``/``device.facts``."""
    info = message.device.model_copy(update={"id": link.device_id})
    link.info = info
    hub.report_status(link.device_id, True, info)
    event = DeviceFactsEvent(device_id=link.device_id, reason=message.reason, info=info)
    for project_id in {s.project_id for s in hub.sessions() if s.device_id == link.device_id}:
        hub.sink.emit(project_id, event)
