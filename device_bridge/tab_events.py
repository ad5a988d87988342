"""The events a project's tabs receive, as pydantic models of their ``data``.

Every event class names its ``CHANNEL`` and ``TYPE``; a producer builds one and hands it to a
sink's ``emit(project_id, event)``, which sends ``event.payload()`` as the envelope's ``data``
(``server/core/events.py``). The events the device hub relays from an agent reuse the fields of
the agent protocol's messages (``device_bridge/protocol.py``) without their ``type``. The server
assembles every event of every layer into one union (``server/api/events.py``).
"""

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, create_model

from device_bridge import protocol as p

Channel = Literal["sys", "files", "git", "jobs", "tools", "devices", "dap", "perf", "log", "llm",
                  "projects", "playground"]


class TabEvent(BaseModel):
    """The ``data`` of one event; ``OMIT_IF_NONE`` fields are left out of it while unset."""

    CHANNEL: ClassVar[Channel]
    TYPE: ClassVar[str]
    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset()

    def payload(self) -> dict[str, Any]:
        """The envelope's ``data``: the fields as JSON values."""
        omitted = {name for name in self.OMIT_IF_NONE if getattr(self, name) is None}
        return self.model_dump(mode="json", exclude=omitted or None)


def _fields(message: type[BaseModel], without: tuple[str, ...]) -> dict[str, Any]:
    return {key: (info.annotation, info) for key, info in message.model_fields.items()
            if key not in without}


def _relayed(name: str, message: type[BaseModel], channel: Channel, **extra: Any) -> type[TabEvent]:
    """An event whose data is an agent message's fields (but ``type``; ``extra`` added)."""
    fields = _fields(message, ("type",))
    event = create_model(name, __base__=TabEvent, __module__=__name__, **fields, **extra)
    event.CHANNEL = channel
    event.TYPE = message.model_fields["type"].default
    event.__doc__ = f"The agent's ``{event.TYPE}`` message (docs/protocol.md), without its ``type``."
    return event


# ---- relayed from the agent as they are (``DeviceHub._route``) -----------------------------

RunStartedEvent = _relayed("RunStartedEvent", p.RunStarted, "log")
RunLogEvent = _relayed("RunLogEvent", p.Log, "log")
RunExitEvent = _relayed("RunExitEvent", p.RunExit, "log")
DapEvent = _relayed("DapEvent", p.Dap, "dap")
BenchResultEvent = _relayed("BenchResultEvent", p.BenchResult, "devices")
WatchHitEvent = _relayed("WatchHitEvent", p.WatchHit, "devices")
WatchDoneEvent = _relayed("WatchDoneEvent", p.WatchDone, "devices")
# an agent's error, or a tab command's (then ``ref`` names the command's type)
DeviceErrorEvent = _relayed("DeviceErrorEvent", p.Error, "devices",
                            ref=(str | None, Field(default=None, description="the command that failed")))
DeviceErrorEvent.OMIT_IF_NONE = frozenset({"ref"})
DeviceErrorEvent.__doc__ = ("An agent's ``error`` message, or a tab command's failure (then ``ref`` "
                            "names the command's type).")
# one sample of a ``perf`` batch: the agent's ``perf`` message but its ``type`` and ``sid``
PerfSample = create_model("PerfSample", __module__=__name__, **_fields(p.Perf, ("type", "sid")))

RELAYED: dict[str, type[TabEvent]] = {
    "run.started": RunStartedEvent, "log": RunLogEvent, "run.exit": RunExitEvent, "dap": DapEvent,
    "bench.result": BenchResultEvent, "watch.hit": WatchHitEvent, "watch.done": WatchDoneEvent,
    "error": DeviceErrorEvent,
}


# ---- the hub's own ---------------------------------------------------------------------------


class PerfBatch(TabEvent):
    """The samples of one session within a short window."""

    CHANNEL: ClassVar[Channel] = "perf"
    TYPE: ClassVar[str] = "perf"
    sid: str
    samples: list[PerfSample]  # type: ignore[valid-type]


class SessionStateEvent(TabEvent):
    """A session opened, was lost with its device, or closed; ``reason`` says why."""

    CHANNEL: ClassVar[Channel] = "devices"
    TYPE: ClassVar[str] = "session.state"
    sid: str
    project: str
    device_id: str
    state: Literal["open", "lost", "closed"]
    reason: str = ""


class DeviceStatusEvent(TabEvent):
    """A device of one of the project's sessions came online or went offline."""

    CHANNEL: ClassVar[Channel] = "devices"
    TYPE: ClassVar[str] = "device.status"
    device_id: str
    online: bool


class DeviceFactsEvent(TabEvent):
    """A device of one of the project's sessions sent its facts again."""

    CHANNEL: ClassVar[Channel] = "devices"
    TYPE: ClassVar[str] = "device.facts"
    device_id: str
    reason: Literal["asked", "changed"]
    info: p.DeviceInfo
