"""Every convert option yields a model MNN loads, with the expected inputs and outputs."""

from pathlib import Path

import MNN
import pytest

from tests.server.modeltools.conftest import Models, run_tool


def _io(path: Path) -> tuple[dict, dict]:
    net = MNN.Interpreter(str(path))
    session = net.createSession({"numThread": 1})
    inputs = {n: tuple(t.getShape()) for n, t in net.getSessionInputAll(session).items()}
    outputs = {n: tuple(t.getShape()) for n, t in net.getSessionOutputAll(session).items()}
    return inputs, outputs


OPTIONS = {
    "default": {},
    "fp16": {"fp16": True},
    "wq8": {"weight_quant_bits": 8},
    "wq4_block": {"weight_quant_bits": 4, "weight_quant_block": 8, "weight_quant_asymmetric": True},
    "static": {"static": True},
    "optimize2": {"optimize_level": 2},
    "biz": {"biz_code": "acme.vision"},
}


@pytest.fixture(scope="module")
def converted(zoo: Models, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple]:
    folder = tmp_path_factory.mktemp("converted")
    done = {}
    for name, options in OPTIONS.items():
        output = folder / f"conv.{name}.mnn"
        args = {"model": str(zoo.conv), "output": str(output), **options}
        done[name] = (output, run_tool("convert", args, folder / f"run-{name}"))
    return done


@pytest.mark.parametrize("name", list(OPTIONS))
def test_each_option_gives_a_loadable_model(converted: dict, name: str) -> None:
    output, outcome = converted[name]
    assert outcome.status == "succeeded", outcome.error
    assert _io(output) == ({"input": (1, 3, 32, 32)}, {"output": (1, 10)})
    result = outcome.result
    assert result["output_size"] == output.stat().st_size
    assert result["inputs"] == [
        {"name": "input", "shape": [1, 3, 32, 32], "dtype": "float32", "layout": "NCHW"}
    ]
    assert result["outputs"] == [{"name": "output"}]


def test_weight_options_shrink_the_model_in_order(converted: dict) -> None:
    size = {name: converted[name][1].result["output_size"] for name in OPTIONS}
    assert size["wq4_block"] < size["wq8"] < size["fp16"] < size["default"]
    ratio = converted["fp16"][1].result["compression_ratio"]
    assert ratio > converted["default"][1].result["compression_ratio"]


def test_false_booleans_leave_the_defaults(zoo: Models, tmp_path: Path, converted: dict) -> None:
    # fp16 and static are read by presence in MNN 3.6.1: False must not switch them on.
    output = tmp_path / "plain.mnn"
    args = {"model": str(zoo.conv), "output": str(output), "fp16": False, "static": False}
    outcome = run_tool("convert", args, tmp_path / "run")
    assert outcome.result["output_size"] == converted["default"][1].result["output_size"]


def test_biz_code_is_stored(converted: dict, tmp_path: Path) -> None:
    output, _ = converted["biz"]
    outcome = run_tool("inspect", {"model": str(output)}, tmp_path / "run")
    assert outcome.result["biz_code"] == "acme.vision"


def test_fixed_batch_on_a_dynamic_model(zoo: Models, tmp_path: Path) -> None:
    output = tmp_path / "dyn.b4.mnn"
    args = {"model": str(zoo.dynamic), "output": str(output), "batch": 4}
    outcome = run_tool("convert", args, tmp_path / "run")
    assert outcome.status == "succeeded", outcome.error
    assert _io(output) == ({"input": (4, 3, 16, 16)}, {"output": (4, 5)})


def test_multi_output_model(zoo: Models, tmp_path: Path) -> None:
    output = tmp_path / "multi.mnn"
    outcome = run_tool("convert", {"model": str(zoo.multi), "output": str(output)}, tmp_path / "r")
    assert outcome.status == "succeeded", outcome.error
    assert {o["name"] for o in outcome.result["outputs"]} == {"logits", "features"}
    assert _io(output)[1] == {"logits": (1, 4), "features": (1, 8, 8, 8)}


def test_mnn_input_is_reconverted_with_fp16(zoo: Models, tmp_path: Path) -> None:
    output = tmp_path / "conv.fp16.mnn"
    args = {"model": str(zoo.conv_mnn), "output": str(output), "fp16": True}
    outcome = run_tool("convert", args, tmp_path / "run")
    assert outcome.status == "succeeded", outcome.error
    assert outcome.result["framework"] == "MNN"
    assert output.stat().st_size < zoo.conv_mnn.stat().st_size
