"""Per-layer compare on real torch exports: fused and renamed tensors still pair, coverage is
reported, the first divergent layer is found, and pairing nothing is a failure."""

from dataclasses import dataclass
from pathlib import Path

import onnx
import pytest

from tests.fakes import layered_models
from tests.server.modeltools.conftest import DynamicModels, run_tool


@dataclass(frozen=True)
class Residual:
    onnx: Path
    mnn: Path
    broken: Path  # the same net but for one convolution's weights


def _ok(outcome) -> dict:
    assert outcome.status == "succeeded", outcome.error
    return outcome.result


def _share(result: dict) -> float:
    return result["coverage"]["matched"] / result["coverage"]["of"]


@pytest.fixture(scope="module")
def residual(tmp_path_factory: pytest.TempPathFactory) -> Residual:
    folder = tmp_path_factory.mktemp("residual")
    source = layered_models.residual(folder / "residual.onnx")
    mnn = folder / "residual.mnn"
    _ok(run_tool("convert", {"model": str(source), "output": str(mnn)}, folder / "convert"))
    broken = layered_models.residual(folder / "broken.onnx", broken=True)
    return Residual(source, mnn, broken)


@pytest.mark.parametrize(("name", "shapes", "fused"), [
    ("detector", {"image": [1, 3, 40, 56]}, "/features/Conv_output_0"),
    ("recogniser", {"crop": [1, 3, 48, 80]}, "/conv/Conv_output_0"),
])
def test_dynamic_exports_pair_their_layers(
    dynamic_zoo: DynamicModels, tmp_path: Path, name: str, shapes: dict, fused: str
) -> None:
    args = {"model": str(getattr(dynamic_zoo, f"{name}_mnn")), "reference": str(getattr(dynamic_zoo, name)),
            "input_shapes": shapes}
    result = _ok(run_tool("compare", args, tmp_path))
    assert result["coverage"]["of"] >= 2 and _share(result) >= 0.9, result["coverage"]
    assert fused in result["fused_away"]  # the conv whose relu the converter fused into it
    assert result["passed"] is True and result["first_divergent"] is None
    assert all(row["relative_error"] < 1e-4 for row in result["layers"])


def test_batchnorm_fused_by_the_converter_is_listed(residual: Residual, tmp_path: Path) -> None:
    args = {"model": str(residual.mnn), "reference": str(residual.onnx),
            "input_shapes": {"image": [1, 3, 32, 32]}}
    result = _ok(run_tool("compare", args, tmp_path))
    assert result["coverage"]["of"] >= 7 and _share(result) >= 0.9, result["coverage"]
    assert {"/stem/stem.0/Conv_output_0", "/stem/stem.1/BatchNormalization_output_0",
            "/block/block.1/BatchNormalization_output_0"} <= set(result["fused_away"])
    rows = {row["name"]: row for row in result["layers"]}
    assert {"/stem/stem.2/Relu_output_0", layered_models.BROKEN_LAYER, "logits"} <= set(rows)
    assert all(row["relative_error"] < 1e-4 and row["cosine"] > 0.9999 for row in rows.values())
    assert result["passed"] is True and result["first_divergent"] is None


def test_a_layer_with_other_weights_is_the_first_divergent(residual: Residual, tmp_path: Path) -> None:
    args = {"model": str(residual.mnn), "reference": str(residual.broken)}
    result = _ok(run_tool("compare", args, tmp_path))
    assert result["passed"] is False
    divergent = result["first_divergent"]
    assert divergent["name"] == layered_models.BROKEN_LAYER, divergent
    assert divergent["relative_error"] > result["threshold"]
    rows = [row["name"] for row in result["layers"]]
    before = result["layers"][: rows.index(layered_models.BROKEN_LAYER)]
    assert before and all(row["relative_error"] < 1e-4 for row in before)


def test_renamed_fused_chain_pairs_by_position(dynamic_zoo: DynamicModels, tmp_path: Path) -> None:
    renamed = onnx.load(str(dynamic_zoo.detector))
    names = {"/features/Conv_output_0": "hidden", "/Relu_output_0": "hidden_relu"}
    for node in renamed.graph.node:
        node.input[:] = [names.get(n, n) for n in node.input]
        node.output[:] = [names.get(n, n) for n in node.output]
    onnx.save(renamed, str(tmp_path / "renamed.onnx"))
    args = {"model": str(dynamic_zoo.detector_mnn), "reference": str(tmp_path / "renamed.onnx"),
            "input_shapes": {"image": [1, 3, 40, 56]}}
    result = _ok(run_tool("compare", args, tmp_path / "run"))
    assert result["coverage"]["matched"] == result["coverage"]["of"] == 2
    assert result["coverage"]["by"]["position"] == 1
    row = next(r for r in result["layers"] if r["matched_by"] == "position")
    assert (row["name"], row["model_name"]) == ("hidden_relu", "/Relu_output_0")
    assert row["relative_error"] < 1e-4 and result["fused_away"] == ["hidden"]


def test_no_pairing_at_all_fails_with_the_reason(dynamic_zoo: DynamicModels, tmp_path: Path) -> None:
    reference = layered_models.channel_mean(tmp_path / "mean.onnx")
    args = {"model": str(dynamic_zoo.detector_mnn), "reference": str(reference),
            "input_shapes": {"image": [1, 3, 40, 56]}, "threshold": 100.0}
    result = _ok(run_tool("compare", args, tmp_path / "run"))
    assert result["outputs"][0]["passed"] is True  # the outputs alone would pass at this threshold
    assert result["coverage"]["matched"] == 0 and result["coverage"]["of"] == 2
    assert "not the same network" in result["coverage"]["reason"]
    assert any(w.startswith("per-layer compare failed") for w in result["warnings"])
    assert result["passed"] is False and result["layers"] == []
