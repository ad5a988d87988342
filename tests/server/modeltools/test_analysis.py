"""Inspect, compare, quantize and benchmark on real small models."""

from pathlib import Path

import numpy as np
import pytest

from tests.fakes import models
from tests.server.modeltools.conftest import Models, run_tool


def _ok(outcome) -> dict:
    assert outcome.status == "succeeded", outcome.error
    return outcome.result


def test_inspect_mnn(zoo: Models, run_dir: Path) -> None:
    info = _ok(run_tool("inspect", {"model": str(zoo.conv_mnn)}, run_dir))
    assert info["format"] == "mnn"
    assert info["inputs"] == [
        {"name": "input", "shape": [1, 3, 32, 32], "dtype": "float32", "layout": "NCHW"}
    ]
    assert [o["name"] for o in info["outputs"]] == ["output"]
    histogram = {row["type"]: row["count"] for row in info["op_histogram"]}
    assert histogram["Convolution"] == 3
    assert info["params"] == 3 * 8 * 9 + 8 + 8 * 16 * 9 + 16 + 16 * 10 + 10
    assert info["mflops"] == pytest.approx(models.macs(zoo.conv) / 1e6, rel=0.05)
    assert info["memory_mb"] > 0
    assert info["version"].startswith("3.")
    assert len(info["uuid"]) == 36
    assert info["biz_code"] == "MNN"


def test_inspect_onnx(zoo: Models, run_dir: Path) -> None:
    info = _ok(run_tool("inspect", {"model": str(zoo.dynamic)}, run_dir))
    assert info["format"] == "onnx"
    assert info["inputs"] == [
        {"name": "input", "shape": ["N", 3, 16, 16], "dtype": "float32", "layout": "NCHW"}
    ]
    assert {row["type"]: row["count"] for row in info["op_histogram"]}["Conv"] == 1
    assert info["params"] == 3 * 8 * 9 + 8 + 8 * 5 + 5
    assert info["mflops"] == pytest.approx(models.macs(zoo.dynamic) / 1e6, rel=0.01)


def test_compare_fp32_with_onnxruntime_passes(zoo: Models, run_dir: Path) -> None:
    args = {"model": str(zoo.conv_mnn), "reference": str(zoo.conv), "seed": 7}
    result = _ok(run_tool("compare", args, run_dir))
    assert result["reference_kind"] == "onnxruntime"
    assert result["passed"] is True
    assert result["max_abs_error"] < 1e-4
    assert result["cosine"] > 0.99999
    layers = {row["name"] for row in result["layers"]}
    assert {"conv1.relu", "conv2.relu", "flat"} <= layers
    assert all(row["max_abs_error"] < 1e-3 for row in result["layers"])


def test_compare_4bit_weights_shows_the_loss(zoo: Models, tmp_path: Path) -> None:
    q4 = tmp_path / "conv.wq4.mnn"
    convert = {"model": str(zoo.conv), "output": str(q4), "weight_quant_bits": 4}
    _ok(run_tool("convert", convert, tmp_path / "c"))
    args = {"model": str(q4), "reference": str(zoo.conv)}
    result = _ok(run_tool("compare", args, tmp_path / "onnx"))
    assert result["passed"] is False
    assert result["outputs"][0]["passed"] is False
    assert result["relative_error"] > result["threshold"]
    assert result["cosine"] < 0.9999
    # MNN against MNN shows the same cost of the quantization.
    versus_mnn = _ok(run_tool("compare", {**args, "reference": str(zoo.conv_mnn)}, tmp_path / "m"))
    assert versus_mnn["reference_kind"] == "mnn"
    assert versus_mnn["max_abs_error"] == pytest.approx(result["max_abs_error"], rel=1e-3)


def test_compare_with_user_inputs_and_multiple_outputs(zoo: Models, tmp_path: Path) -> None:
    mnn = tmp_path / "multi.mnn"
    _ok(run_tool("convert", {"model": str(zoo.multi), "output": str(mnn)}, tmp_path / "c"))
    data = tmp_path / "x.npy"
    np.save(data, np.full((1, 3, 16, 16), 0.5, np.float32))
    args = {"model": str(mnn), "reference": str(zoo.multi), "inputs": {"input": str(data)}}
    result = _ok(run_tool("compare", args, tmp_path / "cmp"))
    assert {row["name"] for row in result["outputs"]} == {"logits", "features"}
    assert result["inputs"] == [{"name": "input", "shape": [1, 3, 16, 16], "source": "file", "file": "x.npy"}]
    assert result["passed"] is True


def test_int8_quantization_with_calibration_images(zoo: Models, tmp_path: Path) -> None:
    int8 = tmp_path / "conv.int8.mnn"
    args = {"model": str(zoo.conv_mnn), "output": str(int8), "calibration": str(zoo.calibration)}
    result = _ok(run_tool("quantize", args, tmp_path / "q"))
    assert result["samples"] == 6
    assert result["layers"] and all(0.9 < row["cosine"] <= 1.0 for row in result["layers"])
    assert result["output_size"] == int8.stat().st_size
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["conv.int8.mnn"]
    check = {"model": str(int8), "reference": str(zoo.conv_mnn), "threshold": 1.0}
    versus_fp32 = _ok(run_tool("compare", check, tmp_path / "cmp"))
    assert 0.95 < versus_fp32["cosine"] < 1.0


def test_int8_quantization_with_sequence_samples(zoo: Models, tmp_path: Path) -> None:
    onnx_model = models.sequence_net(tmp_path / "seq.onnx")
    mnn = tmp_path / "seq.mnn"
    assert (
        run_tool("convert", {"model": str(onnx_model), "output": str(mnn)}, tmp_path / "c").status
        == "succeeded"
    )
    as_files = models.sequence_samples(tmp_path / "npy", count=4, shape=(4, 16))
    as_folders = tmp_path / "folders"
    for index, sample in enumerate(sorted(as_files.iterdir())):
        (as_folders / f"s{index}").mkdir(parents=True)
        np.savetxt(as_folders / f"s{index}" / "input.txt", np.load(sample).reshape(1, -1))
    for name, folder in (("npy", as_files), ("folders", as_folders)):
        int8 = tmp_path / f"seq.{name}.int8.mnn"
        args = {"model": str(mnn), "output": str(int8), "calibration": str(folder), "input_type": "sequence"}
        result = _ok(run_tool("quantize", args, tmp_path / f"q-{name}"))
        assert result["samples"] == 4
        assert result["layers"] and result["cosine"] > 0.99, result["warnings"]
        check = {"model": str(int8), "reference": str(onnx_model), "threshold": 0.1}
        assert _ok(run_tool("compare", check, tmp_path / f"cmp-{name}"))["passed"] is True


def test_quantize_refuses_admm_and_empty_calibration(zoo: Models, tmp_path: Path) -> None:
    base = {"model": str(zoo.conv_mnn), "output": str(tmp_path / "q.mnn")}
    admm = {**base, "calibration": str(zoo.calibration), "feature_method": "ADMM"}
    outcome = run_tool("quantize", admm, tmp_path / "a")
    assert outcome.status == "failed"
    assert "ADMM" in outcome.error and "KL or EMA" in outcome.error
    (tmp_path / "empty").mkdir()
    empty = {**base, "calibration": str(tmp_path / "empty")}
    outcome = run_tool("quantize", empty, tmp_path / "b")
    assert outcome.status == "failed"
    assert "no calibration samples" in outcome.error


def test_benchmark_is_sane(zoo: Models, run_dir: Path) -> None:
    args = {"model": str(zoo.medium_mnn), "warmup": 3, "loops": 30, "per_op_loops": 10}
    result = _ok(run_tool("benchmark", args, run_dir))
    assert 0 < result["min_ms"] <= result["median_ms"] <= result["p90_ms"] <= result["p99_ms"]
    assert sum(result["histogram"]["counts"]) == 30
    ops = result["ops"]
    assert {op["type"] for op in ops} >= {"Convolution"}
    assert sum(op["percent"] for op in ops) == pytest.approx(100.0)
    # Per run, the ops account for the run's time within 10% (measured in the same runs, so
    # another process taking the CPU does not skew it).
    assert 0.9 <= result["op_coverage"] <= 1.0
    outside = [op for op in ops if op["name"] == "(outside ops)"]
    assert len(outside) == 1 and outside[0]["ms"] == result["outside_ops_ms"] >= 0
    assert result["op_total_ms"] + result["outside_ops_ms"] == pytest.approx(sum(op["ms"] for op in ops))
    # The table's rows add up to the profiled run's median (more only when the per-op medians
    # alone exceed it, and then there is no outside row time).
    whole = max(result["profiled_median_ms"], result["op_total_ms"])
    assert sum(op["ms"] for op in ops) == pytest.approx(whole)
    assert result["min_ms"] < result["profiled_median_ms"] * 2
    assert result["mflops"] == pytest.approx(sum(op["mflops"] for op in ops), rel=0.01)


def test_inspect_through_a_temporary_conversion(
    zoo: Models, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The path TFLite, TF and Caffe models take (shown with ONNX, which needs no TensorFlow).
    from server.modeltools import inspect

    monkeypatch.chdir(tmp_path)
    info = inspect._inspect_by_conversion(zoo.multi, "ONNX")
    assert info["format"] == "onnx" and info["converted_for_inspection"] is True
    assert {o["name"] for o in info["outputs"]} == {"logits", "features"}
    assert info["inputs"][0]["shape"] == [1, 3, 16, 16]
    # MNN also counts the non-MAC ops (pooling, copies): a little above the MACs.
    assert info["mflops"] == pytest.approx(models.macs(zoo.multi) / 1e6, rel=0.15)
    assert list(tmp_path.iterdir()) == [tmp_path / "native.log"]


def test_a_library_error_is_reported_with_the_traceback_in_the_log(zoo: Models, tmp_path: Path) -> None:
    data = tmp_path / "text.npy"
    np.save(data, np.full((1, 3, 32, 32), "abc"))  # the right shape, but no numbers
    args = {"model": str(zoo.conv_mnn), "reference": str(zoo.conv), "inputs": {"input": str(data)}}
    run_dir = tmp_path / "run"
    outcome = run_tool("compare", args, run_dir)
    assert outcome.status == "failed"
    assert "could not convert string to float" in outcome.error
    assert "Traceback" not in outcome.error
    assert "Traceback" in (run_dir / "worker.log").read_text()


def test_an_input_file_of_another_shape_than_the_reference_fixes_is_refused(
    zoo: Models, tmp_path: Path
) -> None:
    """Once left to ONNX Runtime (``invalid dimensions``), now refused by name before it runs."""
    data = tmp_path / "small.npy"
    np.save(data, np.zeros((1, 3, 8, 8), np.float32))  # the ONNX graph declares 32×32
    args = {"model": str(zoo.conv_mnn), "reference": str(zoo.conv), "inputs": {"input": str(data)}}
    outcome = run_tool("compare", args, tmp_path / "run")
    assert outcome.status == "failed" and outcome.code == "input_shape_mismatch"
    assert outcome.error == "the reference: input 'input' has a fixed dim 2 of 32; input_shapes gives 8"
