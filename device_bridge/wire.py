"""The protocol's constants and framing, and the agent's view of the hub's messages.

Standard library only: the agent runs on phones and boards where compiled packages such as
pydantic may not install, so it validates the few server messages it takes with the field table
below. ``device_bridge.protocol`` holds the full pydantic models; a test keeps both in step.
"""

import json
import struct
from typing import Any

PROTOCOL_VERSION = 1
WS_PATH = "/bridge/v1/device"

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
CHUNK_BYTES = 1024 * 1024
MAX_MANIFEST_FILES = 20_000
RATE_PER_SECOND = 5_000
RATE_BURST = 10_000
PING_INTERVAL = 10.0
PING_TIMEOUT = 25.0


class Close:
    """WebSocket close codes of the bridge."""

    NORMAL = 1000
    GOING_AWAY = 1001
    PROTOCOL_MISMATCH = 1002
    MALFORMED = 1003
    BAD_TOKEN = 1008
    OVERSIZED = 1009
    INTERNAL = 1011
    PING_TIMEOUT = 4000
    REPLACED = 4001
    REVOKED = 4003
    RATE_LIMITED = 4029


class WireError(Exception):
    """A frame that breaks the protocol; ``code`` is the close code it calls for."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


REQUIRED = object()
SID = ("sid", str, REQUIRED)
RID = ("rid", str, REQUIRED)

# type -> [(field, python type, default or REQUIRED)], for every message the hub sends.
SERVER_MESSAGES: dict[str, list[tuple[str, Any, Any]]] = {
    "welcome": [("protocol", int, REQUIRED), ("device_id", str, REQUIRED),
                ("name", str, REQUIRED), ("token", (str, type(None)), None),
                ("ping_interval", (int, float), PING_INTERVAL),
                ("max_message_bytes", int, MAX_MESSAGE_BYTES), ("chunk_bytes", int, CHUNK_BYTES),
                ("agent_sha256", (str, type(None)), None)],
    "ping": [("t", (int, float), REQUIRED)],
    "error": [("sid", (str, type(None)), None), ("code", str, REQUIRED),
              ("message", str, REQUIRED)],
    "session.open": [SID, ("project", str, REQUIRED)],
    "session.close": [SID],
    "sync.manifest": [SID, ("files", list, REQUIRED), ("prune", bool, True)],
    "sync.done": [SID, ("written", list, []), ("failed", list, [])],
    "run.start": [SID, ("argv", list, REQUIRED), ("env", dict, {}), ("debug", bool, False)],
    "run.stop": [SID],
    "run.stdin": [SID, ("text", str, ""), ("eof", bool, False)],
    "dap": [SID, ("msg", dict, REQUIRED)],
    "bench.start": [SID, ("rid", (str, type(None)), None), ("model", str, REQUIRED), ("threads", int, 4),
                    ("precision", str, "normal"), ("memory", int, 0), ("backend", str, "CPU"),
                    ("power", str, "normal"), ("loops", int, 50), ("warmup", int, 5), ("per_op", bool, True),
                    ("inputs", dict, {}), ("input_shapes", dict, {})],
    "watch.start": [SID, ("model", str, REQUIRED), ("inputs", dict, {}), ("input_shapes", dict, {}),
                    ("ops", list, []),
                    ("bins", int, 32), ("sample", int, 64)],
    "watch.continue": [SID],
    "watch.stop": [SID],
    "llm.chat": [SID, RID, ("model", str, REQUIRED), ("threads", int, 2),
                 ("messages", list, REQUIRED), ("max_new_tokens", int, 128), ("sampler", dict, {})],
    "llm.bench": [SID, RID, ("model", str, REQUIRED), ("threads", int, 2),
                  ("prompt_tokens", list, REQUIRED), ("gen_tokens", int, 128), ("repeats", int, 3)],
    "llm.stop": [SID, RID],
    "pipeline.start": [SID, RID, ("pipeline", str, REQUIRED), ("inputs", list, REQUIRED),
                       ("variants", dict, {})],
    "pipeline.stop": [SID, RID],
    "facts.refresh": [],
}


def parse(frame: str | bytes) -> dict[str, Any]:
    """A hub → agent text frame as a dict with every field present, or ``WireError``."""
    if len(frame) > MAX_MESSAGE_BYTES:
        raise WireError(Close.OVERSIZED, "message too big")
    try:
        raw = json.loads(frame)
    except ValueError as exc:
        raise WireError(Close.MALFORMED, "not JSON") from exc
    kind = raw.get("type") if isinstance(raw, dict) else None
    fields = SERVER_MESSAGES.get(kind) if isinstance(kind, str) else None
    if fields is None:
        raise WireError(Close.MALFORMED, "unknown message type")
    message = {"type": raw["type"]}
    for name, kind, default in fields:
        value = raw.get(name, default)
        if value is REQUIRED or not isinstance(value, kind) or (
            kind is int and isinstance(value, bool)
        ):
            raise WireError(Close.MALFORMED, f"{raw['type']}: bad or missing {name}")
        message[name] = value
    return message


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


def pack_chunk(header: dict[str, Any], payload: bytes) -> bytes:
    """A binary frame: big-endian u32 header length, header JSON, payload."""
    head = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack(">I", len(head)) + head + payload


def unpack_chunk(frame: bytes) -> tuple[dict[str, Any], bytes]:
    if len(frame) > MAX_MESSAGE_BYTES:
        raise WireError(Close.OVERSIZED, "message too big")
    if len(frame) < 4:
        raise WireError(Close.MALFORMED, "binary frame without a header")
    (size,) = struct.unpack(">I", frame[:4])
    if size > len(frame) - 4:
        raise WireError(Close.MALFORMED, "binary frame header length out of range")
    try:
        header = json.loads(frame[4 : 4 + size])
    except ValueError as exc:
        raise WireError(Close.MALFORMED, "bad binary frame header") from exc
    if not isinstance(header, dict):
        raise WireError(Close.MALFORMED, "bad binary frame header")
    return header, frame[4 + size :]
