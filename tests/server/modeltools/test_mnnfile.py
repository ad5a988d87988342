"""The .mnn header reader agrees with MNN's Interpreter and refuses garbage."""

from pathlib import Path

import MNN
import pytest

from server.modeltools.mnnfile import read_header
from tests.server.modeltools.conftest import Models, run_tool


def _interpreter_io(path: Path) -> tuple[dict, set]:
    net = MNN.Interpreter(str(path))
    session = net.createSession({"numThread": 1})
    inputs = {n: list(t.getShape()) for n, t in net.getSessionInputAll(session).items()}
    return inputs, set(net.getSessionOutputAll(session))


@pytest.mark.parametrize("source", ["conv", "multi", "dynamic"])
def test_header_matches_the_interpreter(zoo: Models, tmp_path: Path, source: str) -> None:
    output = tmp_path / f"{source}.mnn"
    args = {"model": str(getattr(zoo, source)), "output": str(output), "biz_code": "hdr"}
    assert run_tool("convert", args, tmp_path / "run").status == "succeeded"
    header = read_header(output)
    inputs, outputs = _interpreter_io(output)
    assert {i["name"]: i["shape"] for i in header["inputs"]} == inputs
    assert {o["name"] for o in header["outputs"]} == outputs
    assert all(i["dtype"] == "float32" and i["layout"] == "NCHW" for i in header["inputs"])
    assert header["biz_code"] == "hdr"
    assert header["uuid"] == MNN.get_model_uuid(str(output))


def test_garbage_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.mnn"
    path.write_bytes(b"\x10\x00\x00\x00" + b"\xff" * 12)
    with pytest.raises(ValueError, match="unreadable MNN header"):
        read_header(path)
