"""TFLite models through convert and inspect, checked against a numpy reference."""

from pathlib import Path

import numpy as np
import pytest

from server.modeltools import tensors
from tests.fakes.tflite_models import DenseNet, dense_net
from tests.server.modeltools.conftest import run_tool

INPUT = {"name": "input", "shape": [1, 8], "dtype": "float32", "layout": "NHWC"}


@pytest.fixture(scope="module")
def dense(tmp_path_factory: pytest.TempPathFactory) -> DenseNet:
    return dense_net(tmp_path_factory.mktemp("tflite") / "dense.tflite")


def _convert(model: DenseNet, folder: Path, **options) -> Path:
    output = folder / "dense.mnn"
    args = {"model": str(model.path), "output": str(output), **options}
    outcome = run_tool("convert", args, folder / "run")
    assert outcome.status == "succeeded", outcome.error
    result = outcome.result
    assert result["framework"] == "TFLITE"
    assert result["output_size"] == output.stat().st_size
    assert result["inputs"] == [INPUT]
    assert result["outputs"] == [{"name": "output"}]
    return output


def _run(path: Path, x: np.ndarray) -> np.ndarray:
    loaded = tensors.load(path)
    assert {n: tuple(t.getShape()) for n, t in loaded.inputs().items()} == {"input": (1, 8)}
    assert {n: tuple(t.getShape()) for n, t in loaded.outputs().items()} == {"output": (1, 4)}
    tensors.feed(loaded, {"input": x})
    loaded.net.runSession(loaded.session)
    return tensors.read(loaded.outputs()["output"])


def _samples() -> list[np.ndarray]:
    x = np.random.default_rng(3).uniform(-1, 1, (1, 8)).astype(np.float32)
    return [x, -x]


def test_file_is_a_tflite_flatbuffer(dense: DenseNet) -> None:
    assert dense.path.read_bytes()[4:8] == b"TFL3"


def test_converted_model_matches_the_reference(dense: DenseNet, tmp_path: Path) -> None:
    output = _convert(dense, tmp_path)
    expected = [dense.reference(x) for x in _samples()]
    # The samples must exercise the fused RELU: some outputs clipped to zero, some not.
    assert (np.concatenate(expected) == 0).any() and (np.concatenate(expected) > 0).any()
    for x, want in zip(_samples(), expected, strict=True):
        assert np.abs(_run(output, x) - want).max() < 1e-4


def test_fp16_conversion_stays_close(dense: DenseNet, tmp_path: Path) -> None:
    x = _samples()[0]
    error = np.abs(_run(_convert(dense, tmp_path, fp16=True), x) - dense.reference(x)).max()
    # Half-precision weights: close to the reference, yet not bit-equal to fp32.
    assert 0 < error < 1e-2


def test_inspect_tflite(dense: DenseNet, tmp_path: Path) -> None:
    outcome = run_tool("inspect", {"model": str(dense.path)}, tmp_path / "run")
    assert outcome.status == "succeeded", outcome.error
    info = outcome.result
    assert info["format"] == "tflite"
    assert info["converted_for_inspection"] is True
    assert info["source_format"] == "TFLITE"
    assert info["file_size"] == dense.path.stat().st_size
    assert info["inputs"] == [INPUT]
    assert [(o["name"], o["shape"]) for o in info["outputs"]] == [("output", [1, 4])]
    assert {row["type"]: row["count"] for row in info["op_histogram"]}["Convolution"] == 1
    assert info["params"] == dense.weights.size + dense.bias.size
