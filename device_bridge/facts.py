"""A device's facts after its ``hello``: the hub asks an agent to probe its device again
(``facts.refresh``), and takes the ``device.facts`` an agent sends, asked or not, without the
device reconnecting (docs/protocol.md, "Fresh facts")."""

from typing import TYPE_CHECKING

from device_bridge import protocol as p
from device_bridge.errors import DeviceOffline

if TYPE_CHECKING:
    from device_bridge.hub import DeviceHub, Link


async def ask(hub: "DeviceHub", device_id: str) -> None:
    """Ask the device's agent for fresh facts; they arrive later as ``device.facts``."""
    link = hub.link_of(device_id)
    if link is None:
        raise DeviceOffline("the device is offline")
    await link.send(p.FactsRefresh())


def received(hub: "DeviceHub", link: "Link", message: p.DeviceFacts) -> None:
    """The facts replace the hello's; they are recorded like a hello's (``on_status``) and the
    projects with a session on the device hear of them as ``devices``/``device.facts``."""
    info = message.device.model_copy(update={"id": link.device_id})
    link.info = info
    hub.report_status(link.device_id, True, info)
    data = {"device_id": link.device_id, "reason": message.reason,
            "info": info.model_dump(mode="json")}
    for project_id in {s.project_id for s in hub.sessions() if s.device_id == link.device_id}:
        hub.sink.publish(project_id, "devices", "device.facts", data)
