"""The ``tools`` events of model tool runs: a run's new state, its progress and its log lines."""

from typing import ClassVar

from device_bridge.tab_events import Channel, TabEvent
from server.modeltools.models import ToolRunPublic


class ToolRunChanged(ToolRunPublic, TabEvent):
    """A run was created or changed state (``ToolRunPublic``'s fields)."""

    CHANNEL: ClassVar[Channel] = "tools"
    TYPE: ClassVar[str] = "run"


class ToolProgress(TabEvent):
    """A progress line of run ``id`` (``server/modeltools/progress.py``)."""

    CHANNEL: ClassVar[Channel] = "tools"
    TYPE: ClassVar[str] = "progress"
    id: str
    fraction: float
    stage: str


class ToolLogLine(TabEvent):
    """An output line of run ``id`` (the first lines of a run only)."""

    CHANNEL: ClassVar[Channel] = "tools"
    TYPE: ClassVar[str] = "log"
    id: str
    line: str
