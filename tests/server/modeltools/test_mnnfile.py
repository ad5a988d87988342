"""The .mnn header and op-table reader agrees with MNN's Interpreter and JSON dump, and refuses
garbage."""

import json
import subprocess
import sys
from pathlib import Path

import MNN
import pytest

from server.modeltools.mnnfile import read_header, read_model
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


def _json_dump(model: Path, out: Path) -> dict:
    """MNN's own full dump of a model (weights included), made by the bare converter."""
    code = "import sys, _tools; _tools.mnnconvert(['mnnconvert', *sys.argv[1:]])"
    argv = ["-f", "MNN", "--modelFile", str(model), "--JsonFile", str(out)]
    subprocess.run([sys.executable, "-c", code, *argv], check=True, capture_output=True, cwd=out.parent)
    return json.loads(out.read_text())


@pytest.mark.parametrize("bits", [0, 8])
def test_op_table_matches_the_json_dump(zoo: Models, tmp_path: Path, bits: int) -> None:
    output = tmp_path / f"conv{bits}.mnn"
    args = {"model": str(zoo.conv), "output": str(output), "weight_quant_bits": bits}
    assert run_tool("convert", args, tmp_path / "run").status == "succeeded"
    dump = _json_dump(output, tmp_path / "dump.json")
    model = read_model(output)
    assert [(op["name"], op["type"]) for op in model["ops"]] == [
        (op["name"], op["type"]) for op in dump["oplists"]
    ]
    names = dump["tensorName"]
    assert [op["outputs"] for op in model["ops"]] == [
        [names[i] for i in op.get("outputIndexes", [])] for op in dump["oplists"]
    ]
    assert model["source_format"] == dump["sourceType"] == "ONNX"
    convs = [op for op in model["ops"] if op["type"] == "Convolution"]
    assert all(op["quantized"] is bool(bits) for op in convs)
    assert sum(op["params"] for op in convs) == 3 * 8 * 9 + 8 + 8 * 16 * 9 + 16 + 16 * 10 + 10
