"""Every project template's default command runs for real and leaves what it promises (the
playground templates have none: they run in the Playground panel, and headless in
test_playground_templates.py)."""

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import MNN
import numpy as np
import onnxruntime
import pytest

from server.projects.templates import list_templates, render_template

F = MNN.expr
TEMPLATES = {info.name: info for info in list_templates()}
WITH_COMMAND = sorted(name for name, info in TEMPLATES.items() if info.default_command)
METRIC_PREFIX = "MNNWB_METRIC "
TRAINING_TEMPLATES = ("mnn-native-mlp", "pytorch-classifier", "device-app")


@dataclass
class TemplateRun:
    project: Path
    out_dir: Path
    stdout: str
    metrics: list[dict]


def run_default(name: str, root: Path) -> TemplateRun:
    project = root / "project"
    render_template(name, project, "demo")
    out_dir = root / "out"
    argv = shlex.split(TEMPLATES[name].default_command)
    assert argv[0] == "python"
    env = {**os.environ, "MNNWB_OUTPUT_DIR": str(out_dir), "PYTHONWARNINGS": "error"}
    done = subprocess.run(
        [sys.executable, *argv[1:]], cwd=project, env=env, capture_output=True, text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    metrics = [json.loads(line.removeprefix(METRIC_PREFIX)) for line in done.stdout.splitlines()
               if line.startswith(METRIC_PREFIX)]
    return TemplateRun(project, out_dir, done.stdout, metrics)


@pytest.fixture(scope="module")
def template_run(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], TemplateRun]:
    """Runs each template once per module, however many tests look at the result."""
    runs: dict[str, TemplateRun] = {}

    def get(name: str) -> TemplateRun:
        if name not in runs:
            runs[name] = run_default(name, tmp_path_factory.mktemp(name))
        return runs[name]

    return get


@pytest.mark.parametrize("name", WITH_COMMAND)
def test_default_command_succeeds(name: str, template_run) -> None:
    run = template_run(name)
    assert all(isinstance(point.get("step"), int) for point in run.metrics)


@pytest.mark.parametrize("name", WITH_COMMAND)
def test_every_template_reports_metrics_and_writes_artifacts(name: str, template_run) -> None:
    run = template_run(name)
    assert run.metrics
    assert any(path.is_file() for path in run.out_dir.rglob("*"))


def test_training_templates_are_offered() -> None:
    assert set(TRAINING_TEMPLATES) <= set(TEMPLATES)
    for name in TRAINING_TEMPLATES:
        assert TEMPLATES[name].default_command.startswith("python ")


def test_mnn_mlp_learns_and_saves_a_working_model(template_run) -> None:
    run = template_run("mnn-native-mlp")
    assert run.metrics[-1]["acc"] > 0.9
    assert run.metrics[-1]["loss"] < run.metrics[0]["loss"]
    net = MNN.nn.load_module_from_file(str(run.out_dir / "model.mnn"), ["input"], ["probs"])
    points = np.array([[0.6, 0.6], [0.6, -0.6], [-0.6, 0.6], [-0.6, -0.6]], np.float32)
    probs = [np.array(net.forward(F.const(p[None], [1, 2], F.NCHW)).read())[0] for p in points]
    assert [int(np.argmax(p)) for p in probs] == [1, 0, 0, 1]


def test_pytorch_classifier_exports_an_onnx_model_that_classifies(template_run) -> None:
    run = template_run("pytorch-classifier")
    assert run.metrics[-1]["acc"] > 0.85
    assert (run.out_dir / "model.pt").stat().st_size > 0
    session = onnxruntime.InferenceSession(str(run.out_dir / "model.onnx"))
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = (digits.images[:200] / 16.0).astype(np.float32)[:, None]
    logits = session.run(["logits"], {"input": images})[0]
    assert logits.shape == (200, 10)
    assert (logits.argmax(1) == digits.target[:200]).mean() > 0.85
    requirements = (run.project / "requirements.txt").read_text().split()
    assert "torch==2.13.0" in requirements


def test_device_app_classifies_its_samples(template_run) -> None:
    run = template_run("device-app")
    assert run.metrics[-1]["acc"] == 1.0
    assert all(point["latency_ms"] > 0 for point in run.metrics[:-1])
    predictions = json.loads((run.out_dir / "predictions.json").read_text())
    assert [p["top"][0]["label"] for p in predictions] == ["red", "green", "blue"]
    assert (run.out_dir / "model.mnn").exists()


def test_device_app_classifies_a_given_image(tmp_path: Path) -> None:
    project = tmp_path / "project"
    render_template("device-app", project, "demo")
    image = np.zeros((20, 30, 3), np.uint8)
    image[..., 2] = 250
    np.save(tmp_path / "blue.npy", image)
    env = {**os.environ, "MNNWB_OUTPUT_DIR": str(tmp_path / "out")}
    done = subprocess.run([sys.executable, "app.py", str(tmp_path / "blue.npy")], cwd=project,
                          env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "image 1: blue" in done.stdout
