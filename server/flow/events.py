"""The flow's ``devices`` event: a deploy or a device benchmark of the project was recorded."""

from typing import ClassVar

from device_bridge.tab_events import Channel, TabEvent


class FlowRecorded(TabEvent):
    """The device's record is written: the tabs' flows read it now."""

    CHANNEL: ClassVar[Channel] = "devices"
    TYPE: ClassVar[str] = "flow.recorded"
    device_id: str
