"""The device bridge protocol, version 1: every message between the hub and a device agent.

Text frames carry one JSON object with a ``type`` field. Binary frames carry file chunks during a
sync: a 4-byte big-endian header length, the header (JSON, ``FileChunk``), then the raw bytes.
``docs/protocol.md`` is the prose specification; this module is its executable form.
"""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from device_bridge import wire
from device_bridge.protocol_base import Model, Sid, Text
from device_bridge.protocol_device import (  # noqa: F401 - re-exported: one import for every message
    DeviceFacts,
    DeviceInfo,
    DoctorCheck,
    FactsRefresh,
    MnnBackend,
)
from device_bridge.protocol_llm import (  # noqa: F401 - re-exported: one import for every message
    LlmBench,
    LlmChat,
    LlmDone,
    LlmMessage,
    LlmProgress,
    LlmStop,
    LlmToken,
)
from device_bridge.protocol_pipeline import (  # noqa: F401 - re-exported: one import for every message
    PipelineResult,
    PipelineStart,
    PipelineStop,
)
from device_bridge.wire import (  # noqa: F401 - re-exported: the hub's one import for the protocol
    CHUNK_BYTES,
    MAX_MANIFEST_FILES,
    MAX_MESSAGE_BYTES,
    PING_INTERVAL,
    PING_TIMEOUT,
    PROTOCOL_VERSION,
    RATE_BURST,
    RATE_PER_SECOND,
    WS_PATH,
    Close,
)
from device_bridge.wire import WireError as ProtocolError

# ---- connection ----------------------------------------------------------------------------


class Hello(Model):
    type: Literal["hello"] = "hello"
    protocol: int
    token: str = Field(min_length=1, max_length=512)
    device: DeviceInfo
    sessions: list[Sid] = Field(default_factory=list, max_length=1000,
                                description="sessions the agent still holds")


class Welcome(Model):
    type: Literal["welcome"] = "welcome"
    protocol: int = PROTOCOL_VERSION
    device_id: str
    name: str
    token: str | None = Field(default=None, description="a new device token after pairing")
    ping_interval: float = PING_INTERVAL
    max_message_bytes: int = MAX_MESSAGE_BYTES
    chunk_bytes: int = CHUNK_BYTES
    agent_sha256: str | None = Field(default=None,
                                     description="of the agent.pyz the workbench serves")


class Ping(Model):
    type: Literal["ping"] = "ping"
    t: float


class Pong(Model):
    type: Literal["pong"] = "pong"
    t: float


class Error(Model):
    type: Literal["error"] = "error"
    sid: Sid | None = None
    code: str = Field(max_length=64)
    message: str = Field(max_length=4096)


# ---- sessions and sync ---------------------------------------------------------------------


class SessionOpen(Model):
    type: Literal["session.open"] = "session.open"
    sid: Sid
    project: str = Field(max_length=256)


class SessionClose(Model):
    type: Literal["session.close"] = "session.close"
    sid: Sid


class ManifestEntry(Model):
    path: str = Field(min_length=1, max_length=1024)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    size: int = Field(ge=0)


class SyncManifest(Model):
    type: Literal["sync.manifest"] = "sync.manifest"
    sid: Sid
    files: list[ManifestEntry] = Field(max_length=MAX_MANIFEST_FILES)
    prune: bool = Field(default=True, description="delete files earlier syncs wrote that are not "
                        "listed; false when only some files are pushed (a model folder)")


class SyncNeed(Model):
    type: Literal["sync.need"] = "sync.need"
    sid: Sid
    paths: list[str] = Field(max_length=MAX_MANIFEST_FILES)
    deleted: list[str] = Field(default_factory=list, max_length=MAX_MANIFEST_FILES)


class SyncDone(Model):
    """Server → device: every needed chunk has been sent. Device → server: the result."""

    type: Literal["sync.done"] = "sync.done"
    sid: Sid
    written: list[str] = Field(default_factory=list, max_length=MAX_MANIFEST_FILES)
    failed: list[str] = Field(default_factory=list, max_length=MAX_MANIFEST_FILES)


class FileChunk(Model):
    """The header of one binary frame: ``size`` bytes of ``path`` starting at ``offset``."""

    type: Literal["sync.chunk"] = "sync.chunk"
    sid: Sid
    path: str = Field(min_length=1, max_length=1024)
    offset: int = Field(ge=0)
    total: int = Field(ge=0, description="the whole file's size")


# ---- runs, debugging, perf ------------------------------------------------------------------


class RunStart(Model):
    type: Literal["run.start"] = "run.start"
    sid: Sid
    argv: list[str] = Field(min_length=1, max_length=256)
    env: dict[str, str] = Field(default_factory=dict)
    debug: bool = False


class RunStarted(Model):
    type: Literal["run.started"] = "run.started"
    sid: Sid
    pid: int
    cwd: str
    debug: bool = False


class Log(Model):
    type: Literal["log"] = "log"
    sid: Sid
    stream: Literal["stdout", "stderr", "system"]
    text: Text


class RunExit(Model):
    type: Literal["run.exit"] = "run.exit"
    sid: Sid
    code: int | None
    signal: int | None = None


class RunStop(Model):
    type: Literal["run.stop"] = "run.stop"
    sid: Sid


class RunStdin(Model):
    type: Literal["run.stdin"] = "run.stdin"
    sid: Sid
    text: Text = ""
    eof: bool = False


class Dap(Model):
    type: Literal["dap"] = "dap"
    sid: Sid
    msg: dict[str, Any]


class Perf(Model):
    type: Literal["perf"] = "perf"
    sid: Sid
    t: float
    cpu: float = Field(ge=0, description="percent of one core, summed over the processes")
    rss: int = Field(ge=0)
    threads: int = Field(ge=0)


# ---- on-device MNN tools --------------------------------------------------------------------


class InputSpec(Model):
    """How to fill one model input: a file in the session folder (an image or ``.wav``,
    preprocessed by the model's spec, or a ``.npy``), or a constant/random."""

    file: str | None = Field(default=None, max_length=1024)
    npy: str | None = Field(default=None, max_length=1024)
    fill: float | Literal["random"] = "random"


class BenchStart(Model):
    type: Literal["bench.start"] = "bench.start"
    sid: Sid
    rid: Sid | None = Field(default=None, description="set by the workbench's own requests (a "
                            "budget check): the result comes back to it, not to the tabs")
    model: str = Field(min_length=1, max_length=1024)
    threads: int = Field(default=4, ge=1, le=64)
    precision: Literal["normal", "high", "low", "low_bf16"] = "normal"
    memory: int = Field(default=0, ge=0, le=2)
    backend: str = Field(default="CPU", max_length=32,
                         description="one the device reports available (DeviceInfo.backends)")
    power: Literal["normal", "high", "low"] = "normal"
    loops: int = Field(default=50, ge=1, le=100_000)
    warmup: int = Field(default=5, ge=0, le=10_000)
    per_op: bool = True
    inputs: dict[str, InputSpec] = Field(default_factory=dict, max_length=64)
    input_shapes: dict[str, list[int]] = Field(
        default_factory=dict, max_length=64, description="a shape for each input with a dynamic "
        "dim the spec has no default for; a missing one is refused with input_shape_required")


class OpTime(Model):
    name: str
    type: str
    ms: float
    percent: float
    mflops: float


class BenchResult(Model):
    type: Literal["bench.result"] = "bench.result"
    sid: Sid
    rid: Sid | None = None
    ok: bool
    error: str | None = None
    loops: int = 0
    min_ms: float | None = None
    median_ms: float | None = None
    p90_ms: float | None = None
    p99_ms: float | None = None
    mean_ms: float | None = None
    memory_mb: float | None = Field(default=None, description="MNN's memory for the session")
    ops: list[OpTime] = Field(default_factory=list)
    backend: str | None = Field(default=None, description="the backend the session ran on")
    threads: int | None = None
    precision: str | None = None
    power: str | None = None
    input_shapes: dict[str, list[int]] | None = Field(default=None, description="the shapes run")
    inputs: dict[str, str] | None = Field(default=None, description="input → where its value "
                                          "came from: a file, 'random' or 'fill <n>'")
    code: str | None = Field(default=None, description="why it was refused: input_shape_required, "
                             "input_shape_mismatch, spec_required, input_file_unusable …")
    input: str | None = Field(default=None, description="the input a refusal names")


class WatchStart(Model):
    type: Literal["watch.start"] = "watch.start"
    sid: Sid
    model: str = Field(min_length=1, max_length=1024)
    inputs: dict[str, InputSpec] = Field(default_factory=dict)
    input_shapes: dict[str, list[int]] = Field(default_factory=dict, max_length=64)
    ops: list[str] = Field(default_factory=list, max_length=1000, description="empty: every op")
    bins: int = Field(default=32, ge=1, le=256)
    sample: int = Field(default=64, ge=0, le=4096)


class TensorStats(Model):
    min: float
    max: float
    mean: float
    std: float


class Histogram(Model):
    edges: list[float]
    counts: list[int]


class WatchHit(Model):
    type: Literal["watch.hit"] = "watch.hit"
    sid: Sid
    op: str
    op_type: str
    index: int = Field(description="which output of the op")
    shape: list[int]
    stats: TensorStats | None
    histogram: Histogram | None
    sample: list[float]


class WatchContinue(Model):
    type: Literal["watch.continue"] = "watch.continue"
    sid: Sid


class WatchStop(Model):
    type: Literal["watch.stop"] = "watch.stop"
    sid: Sid


class WatchDone(Model):
    type: Literal["watch.done"] = "watch.done"
    sid: Sid
    ok: bool
    hits: int = 0
    error: str | None = None
    code: str | None = None
    input: str | None = None


DeviceMessage = Annotated[
    Hello | Pong | Error | SyncNeed | SyncDone | RunStarted | Log | RunExit | Dap | Perf
    | BenchResult | WatchHit | WatchDone | LlmToken | LlmProgress | LlmDone | PipelineResult
    | DeviceFacts,
    Field(discriminator="type"),
]
ServerMessage = Annotated[
    Welcome | Ping | Error | SessionOpen | SessionClose | SyncManifest | SyncDone | RunStart
    | RunStop | RunStdin | Dap | BenchStart | WatchStart | WatchContinue | WatchStop
    | LlmChat | LlmBench | LlmStop | PipelineStart | PipelineStop | FactsRefresh,
    Field(discriminator="type"),
]
_device_adapter: TypeAdapter[Any] = TypeAdapter(DeviceMessage)
_server_adapter: TypeAdapter[Any] = TypeAdapter(ServerMessage)


def _parse(adapter: TypeAdapter[Any], frame: str | bytes) -> Any:
    if len(frame) > MAX_MESSAGE_BYTES:
        raise ProtocolError(Close.OVERSIZED, "message too big")
    try:
        return adapter.validate_json(frame)
    except ValidationError as exc:
        raise ProtocolError(Close.MALFORMED, f"malformed message: {_first_error(exc)}") from exc


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(part) for part in err["loc"])
    return f"{where}: {err['msg']}"[:120]


def parse_device_message(frame: str | bytes) -> Any:
    """Parse a text frame the hub received from an agent."""
    return _parse(_device_adapter, frame)


def parse_server_message(frame: str | bytes) -> Any:
    """Parse a text frame the agent received from the hub."""
    return _parse(_server_adapter, frame)


def encode(message: BaseModel) -> str:
    return message.model_dump_json(exclude_none=False)


def pack_chunk(header: FileChunk, payload: bytes) -> bytes:
    """Build a binary frame: big-endian u32 header length, header JSON, payload."""
    return wire.pack_chunk(header.model_dump(), payload)


def unpack_chunk(frame: bytes) -> tuple[FileChunk, bytes]:
    header, payload = wire.unpack_chunk(frame)
    try:
        return FileChunk.model_validate(header), payload
    except ValidationError as exc:
        raise ProtocolError(Close.MALFORMED, "bad binary frame header") from exc
