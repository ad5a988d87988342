import json
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from device_bridge import protocol as p
from device_bridge import wire


def test_device_messages_parse_by_type() -> None:
    perf = p.parse_device_message(
        json.dumps({"type": "perf", "sid": "s1", "t": 1.5, "cpu": 12.5, "rss": 10, "threads": 2})
    )
    assert isinstance(perf, p.Perf) and perf.cpu == 12.5
    dap = p.parse_device_message('{"type": "dap", "sid": "s1", "msg": {"seq": 1}}')
    assert isinstance(dap, p.Dap)


def test_server_messages_parse_by_type() -> None:
    start = p.parse_server_message(json.dumps({"type": "run.start", "sid": "s", "argv": ["a"]}))
    assert isinstance(start, p.RunStart) and start.debug is False
    with pytest.raises(p.ProtocolError) as caught:
        p.parse_server_message('{"type": "perf"}')
    assert caught.value.code == p.Close.MALFORMED


@pytest.mark.parametrize(
    "frame",
    [
        "{",
        "[]",
        '{"type": "nope"}',
        '{"type": "log", "sid": "../x", "stream": "stdout", "text": ""}',
        '{"type": "pong", "t": 1, "extra": true}',
    ],
)
def test_malformed_frames_call_for_1003(frame: str) -> None:
    with pytest.raises(p.ProtocolError) as caught:
        p.parse_device_message(frame)
    assert caught.value.code == 1003


def test_oversized_frame_calls_for_1009() -> None:
    with pytest.raises(p.ProtocolError) as caught:
        p.parse_device_message("x" * (p.MAX_MESSAGE_BYTES + 1))
    assert caught.value.code == 1009


def test_chunk_frames_round_trip() -> None:
    header = p.FileChunk(sid="s", path="a/b.bin", offset=4, total=9)
    back, payload = p.unpack_chunk(p.pack_chunk(header, b"hello"))
    assert back == header and payload == b"hello"
    for bad in (b"\x00", b"\x00\x00\x00\xff{}", b"\x00\x00\x00\x02{}"):
        with pytest.raises(p.ProtocolError):
            p.unpack_chunk(bad)


def test_the_agents_field_table_matches_the_models() -> None:
    """The agent validates hub messages without pydantic; its table must follow the models."""
    models = get_args(get_args(p.ServerMessage)[0])
    for model in models:
        kind = model.model_fields["type"].default
        fields = {name for name, _, _ in wire.SERVER_MESSAGES[kind]}
        assert fields == set(model.model_fields) - {"type"}, kind
        full = p.parse_server_message(
            model.model_validate(EXAMPLES.get(kind, {"sid": "s"})).model_dump_json()
        )
        assert wire.parse(p.encode(full)) == full.model_dump(), kind
    assert len(wire.SERVER_MESSAGES) == len(models)


def test_the_agent_imports_neither_pydantic_nor_the_server() -> None:
    code = (
        "import sys, device_bridge.agent.__main__, device_bridge.agent.mnn_tasks; "
        "print(sorted({m.split('.')[0] for m in sys.modules}))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    for forbidden in ("pydantic", "server", "fastapi", "starlette"):
        assert f"'{forbidden}'" not in loaded


EXAMPLES = {
    "welcome": {"device_id": "d", "name": "n", "token": "t"},
    "ping": {"t": 1.0},
    "error": {"code": "c", "message": "m"},
    "session.open": {"sid": "s", "project": "p"},
    "sync.manifest": {"sid": "s", "files": [{"path": "a", "sha256": "0" * 64, "size": 1}]},
    "run.start": {"sid": "s", "argv": ["a.py"], "env": {"A": "1"}},
    "dap": {"sid": "s", "msg": {"seq": 1}},
    "bench.start": {"sid": "s", "model": "m.mnn"},
    "watch.start": {"sid": "s", "model": "m.mnn", "inputs": {"x": {"fill": 1.0}}},
    "llm.chat": {"sid": "s", "rid": "r", "model": "m", "messages": [{"role": "user", "content": "hi"}]},
    "llm.bench": {"sid": "s", "rid": "r", "model": "m", "prompt_tokens": [8]},
    "llm.stop": {"sid": "s", "rid": "r"},
    "pipeline.start": {"sid": "s", "rid": "r", "pipeline": "pipeline.toml", "inputs": ["photo.png"]},
    "pipeline.stop": {"sid": "s", "rid": "r"},
    "facts.refresh": {},
}


def test_the_spec_documents_every_message_and_close_code() -> None:
    spec = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    unions = (p.ServerMessage, p.DeviceMessage)
    kinds = {m.model_fields["type"].default for u in unions for m in get_args(get_args(u)[0])}
    for kind in kinds | {"sync.chunk"}:
        assert f'"{kind}"' in spec or f"`{kind}`" in spec, kind
    codes = [v for k, v in vars(wire.Close).items() if k.isupper()]
    for code in codes:
        assert f"| {code} |" in spec or f"| **{code}** |" in spec, code
