"""Real small models, generated once per test session. ``run_tool`` and ``wait_for_run`` live in
tests/plugin/tools.py; they are imported here too, for the modules importing them from here."""

from dataclasses import dataclass
from pathlib import Path

import pytest

from server.modeltools.pool import Standby
from server.modeltools.runner import WorkerSpec
from tests.fakes import dynamic_models, models
from tests.plugin.tools import run_tool, wait_for_run  # noqa: F401


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
    """The folder of one tool run of this test (not made yet)."""
    return tmp_path / "run"

