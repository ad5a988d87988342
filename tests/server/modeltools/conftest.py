"""Real small models, generated once per test session, and a helper to run a tool on them."""

from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.modeltools.pool import Standby
from server.modeltools.runner import Limits, Outcome, WorkerSpec, run_worker
from tests.fakes import dynamic_models, models
from tests.waiting import wait_until


@dataclass(frozen=True)
class Models:
    folder: Path
    conv: Path
    conv_mnn: Path
    dynamic: Path
    multi: Path
    medium_mnn: Path
    calibration: Path


class RecordingLauncher:
    """A launcher that records which spare (standby) processes it handed over."""

    def __init__(self, standby: Standby) -> None:
        self.standby, self.pids = standby, []

    def take(self, spec: WorkerSpec):
        proc = self.standby.take(spec)
        if proc is not None:
            self.pids.append(proc.pid)
        return proc


def run_tool(tool: str, args: dict, run_dir: Path, timeout: float = 60.0, **kw) -> Outcome:
    """Run one tool through the real runner (fresh worker process)."""
    spec = WorkerSpec(tool, args, run_dir, Limits(timeout_s=timeout), **kw)
    return run_worker(spec)


def _convert(source: Path, run_dir: Path) -> Path:
    output = source.with_suffix(".mnn")
    outcome = run_tool("convert", {"model": str(source), "output": str(output)}, run_dir)
    assert outcome.status == "succeeded", outcome.error
    return output


@pytest.fixture(scope="session")
def zoo(tmp_path_factory: pytest.TempPathFactory) -> Models:
    folder = tmp_path_factory.mktemp("zoo")
    conv = models.conv_net(folder / "conv.onnx")
    medium = models.medium_net(folder / "medium.onnx")
    return Models(
        folder=folder,
        conv=conv,
        conv_mnn=_convert(conv, folder / "runs" / "conv"),
        dynamic=models.dynamic_batch_net(folder / "dynamic.onnx"),
        multi=models.multi_output_net(folder / "multi.onnx"),
        medium_mnn=_convert(medium, folder / "runs" / "medium"),
        calibration=models.calibration_images(folder / "calibration", count=6, size=40),
    )


@dataclass(frozen=True)
class DynamicModels:
    detector: Path  # image [1, 3, height, width] → score [1, 1, height, width]
    detector_mnn: Path
    recogniser: Path  # crop [batch, 3, 48, width]
    recogniser_mnn: Path
    constant: Path  # the detector's shape, 0 everywhere
    constant_mnn: Path


@pytest.fixture(scope="session")
def dynamic_zoo(tmp_path_factory: pytest.TempPathFactory) -> DynamicModels:
    folder = tmp_path_factory.mktemp("dynamic")
    made = {name: getattr(dynamic_models, name)(folder / f"{name}.onnx")
            for name in ("detector", "recogniser", "constant")}
    converted = {f"{name}_mnn": _convert(path, folder / "runs" / name) for name, path in made.items()}
    return DynamicModels(**made, **converted)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return tmp_path / "run"


def wait_for_run(client: TestClient, run_id: str, timeout: float = 60.0) -> dict:
    """Poll a run until it is final."""
    return wait_until(lambda: (run := client.get(f"/api/tool-runs/{run_id}").json())["status"]
                      not in ("queued", "running") and run, timeout, f"tool run {run_id} to finish")
