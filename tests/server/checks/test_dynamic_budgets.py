"""A budget on a model with dynamic input dims measures at the shapes it names, never at a guess."""

from pathlib import Path

from server.checks.measure import measure
from server.checks.models import Budget
from tests.fakes import dynamic_models
from tests.plugin.tools import run_tool


def test_a_budget_names_its_shapes_or_fails_saying_which_dim(tmp_path: Path) -> None:
    source = dynamic_models.detector(tmp_path / "detector.onnx")
    args = {"model": str(source), "output": str(tmp_path / "detector.mnn")}
    assert run_tool("convert", args, tmp_path / "run").status == "succeeded"
    limits = {"model": "detector.mnn", "reference": "detector.onnx", "max_latency_ms": 10_000.0,
              "min_cosine": 0.99, "loops": 2}
    unnamed = measure(tmp_path, Budget.model_validate(limits))
    assert [r.value for r in unnamed] == [None, None]
    assert all("(input_shape_required)" in (r.detail or "") and "dim 2" in (r.detail or "")
               for r in unnamed)
    named = measure(tmp_path, Budget.model_validate({**limits, "input_shapes": {"image": [1, 3, 40, 56]}}))
    assert [(r.metric, r.passed) for r in named] == [("latency_ms", True), ("cosine", True)]
