"""Every websocket event a tab receives, as one typed union.

Each event's ``data`` is a ``TabEvent`` model (``device_bridge/tab_events.py``) kept beside its
producer; this module, which sees every layer, lists them all (``EVENTS``), wraps each in its
envelope model (``{v, seq, channel, type, data}`` with ``channel`` and ``type`` as literals),
and builds a union per channel, discriminated on ``type`` (``CHANNEL_EVENTS``), and ``ServerEvent``,
discriminated on ``channel``. The OpenAPI document carries them (``server/api/openapi.py``), so the
web UI's generated types do too. ``sys`` events are the socket's own (``server/api/ws.py``).
"""

from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter, create_model

from device_bridge import tab_events as device
from device_bridge.deploy import SyncReport
from device_bridge.tab_events import Channel, TabEvent
from server.core.events import PROTOCOL_VERSION, Envelope
from server.files.events import FilesChanged, GitChanged
from server.flow.events import FlowRecorded
from server.gitflow.events import GitProgress
from server.llm.events import ChatDone, ChatToken
from server.modeltools.events import ToolLogLine, ToolProgress, ToolRunChanged
from server.projects.events import CloneCancelled, CloneDone, CloneFailed, CloneProgress
from server.training import events as training
from server.training.artifacts import ArtifactsPulled
from server.training.marks import JobMarked

# ---- the socket's own ----------------------------------------------------------------------


class SysHello(TabEvent):
    """The first message: the project's current sequence number (resume with ``since=`` it)."""

    CHANNEL: ClassVar[Channel] = "sys"
    TYPE: ClassVar[str] = "hello"
    seq: int
    project: str


class SysResync(TabEvent):
    """The replay after ``since=`` was incomplete: reload the state."""

    CHANNEL: ClassVar[Channel] = "sys"
    TYPE: ClassVar[str] = "resync"


class SysDropped(TabEvent):
    """``count`` ``perf`` events were dropped for this slow tab."""

    CHANNEL: ClassVar[Channel] = "sys"
    TYPE: ClassVar[str] = "dropped"
    count: int


class SysError(TabEvent):
    """A command the socket could not take."""

    CHANNEL: ClassVar[Channel] = "sys"
    TYPE: ClassVar[str] = "error"
    detail: str
    code: str


class SysPing(TabEvent):
    """Answer with ``sys``/``pong``; two unanswered pings close the socket."""

    CHANNEL: ClassVar[Channel] = "sys"
    TYPE: ClassVar[str] = "ping"


def sys_message(event: TabEvent) -> Envelope:
    """The socket's own message for ``event`` (no sequence number: it is not replayed)."""
    return Envelope(channel=event.CHANNEL, type=event.TYPE, data=event.payload())


EVENTS: tuple[type[TabEvent], ...] = (
    SysHello, SysResync, SysDropped, SysError, SysPing,
    FilesChanged, GitChanged, GitProgress,
    training.JobStatus, training.JobMetric, training.VenvProgress, training.VenvDone,
    training.ArtifactsProgress, ArtifactsPulled, JobMarked, training.JobLog,
    training.JobCloudStatus, training.JobCloudError, training.JobCloudEvent,
    ToolRunChanged, ToolProgress, ToolLogLine,
    device.SessionStateEvent, device.DeviceStatusEvent, device.DeviceFactsEvent, SyncReport,
    device.BenchResultEvent, device.WatchHitEvent, device.WatchDoneEvent, device.DeviceErrorEvent,
    FlowRecorded,
    device.DapEvent, device.PerfBatch,
    device.RunStartedEvent, device.RunLogEvent, device.RunExitEvent,
    ChatToken, ChatDone,
    CloneProgress, CloneDone, CloneCancelled, CloneFailed,
)


def _pascal(text: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in text.replace("_", ".").split("."))


def _envelope_model(event: type[TabEvent]) -> type[BaseModel]:
    """``{v, seq, channel, type, data}`` of one event, its channel and type as literals."""
    fields: dict[str, Any] = {
        "v": (int, PROTOCOL_VERSION), "seq": (int, 0),
        "channel": (Literal.__getitem__(event.CHANNEL), ...),
        "type": (Literal.__getitem__(event.TYPE), ...),
        "data": (event, ...),
    }
    name = f"{_pascal(event.CHANNEL)}{_pascal(event.TYPE)}Envelope"
    return create_model(name, __module__=__name__, **fields)


def _union(members: list[type[BaseModel]], discriminator: str) -> Any:
    if len(members) == 1:
        return members[0]
    return Annotated[Union[tuple(members)], Field(discriminator=discriminator)]  # noqa: UP007


ENVELOPES: dict[type[TabEvent], type[BaseModel]] = {event: _envelope_model(event) for event in EVENTS}
CHANNEL_EVENTS: dict[str, Any] = {
    channel: _union([ENVELOPES[e] for e in EVENTS if e.CHANNEL == channel], "type")
    for channel in dict.fromkeys(event.CHANNEL for event in EVENTS)
}
ServerEvent: Any = Annotated[Union[tuple(CHANNEL_EVENTS.values())], Field(discriminator="channel")]  # noqa: UP007


def channel_schema_name(channel: str) -> str:
    return f"{_pascal(channel)}Event"


def schemas(ref_template: str) -> dict[str, Any]:
    """The JSON schemas of every envelope, every channel's union (``FilesEvent``, …) and
    ``ServerEvent``, by name, with the models they use."""
    found: dict[str, Any] = {}
    refs: list[dict[str, str]] = []
    for channel, union in CHANNEL_EVENTS.items():
        schema = TypeAdapter(union).json_schema(ref_template=ref_template, mode="serialization")
        found.update(schema.pop("$defs", {}))
        name = channel_schema_name(channel)
        if "oneOf" not in schema:  # a channel of one event: its envelope's own schema
            found[schema["title"]] = schema
            schema = {"oneOf": [{"$ref": ref_template.format(model=schema["title"])}]}
        found[name] = {"title": name, **schema}
        refs.append({"$ref": ref_template.format(model=name)})
    found["ServerEvent"] = {"title": "ServerEvent", "oneOf": refs,
                            "description": "Every event a tab's websocket receives."}
    for event, envelope_model in ENVELOPES.items():  # what is always sent is required
        for model, optional in ((event, event.OMIT_IF_NONE), (envelope_model, frozenset())):
            properties = found[model.__name__].get("properties", {})
            found[model.__name__]["required"] = [name for name in properties if name not in optional]
    return found
