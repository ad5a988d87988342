"""A real model in its variants (fp32, fp16, 8-bit weights, int8) and a slower, larger model,
made once per test session, and a project folder to copy them into."""

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes import models
from tests.plugin.tools import run_tool


@dataclass(frozen=True)
class Variants:
    folder: Path
    onnx: Path
    fp32: Path
    fp16: Path
    wq8: Path
    int8: Path
    slow: Path

    def copy_to(self, project: Path) -> None:
        for path in (self.onnx, self.fp32, self.fp16, self.wq8, self.int8, self.slow):
            shutil.copy(path, project / path.name)


def _made(tool: str, args: dict, run_dir: Path) -> Path:
    outcome = run_tool(tool, args, run_dir)
    assert outcome.status == "succeeded", outcome.error
    return Path(args["output"])


@pytest.fixture(scope="session")
def variants(tmp_path_factory: pytest.TempPathFactory) -> Variants:
    folder = tmp_path_factory.mktemp("variants")
    runs = folder / ".runs"
    onnx = models.conv_net(folder / "model.onnx")
    fp32 = _made("convert", {"model": str(onnx), "output": str(folder / "model.mnn")}, runs / "fp32")
    convert = {"model": str(onnx), "output": str(folder / "model.fp16.mnn"), "fp16": True}
    fp16 = _made("convert", convert, runs / "fp16")
    convert = {"model": str(onnx), "output": str(folder / "model.wq8.mnn"), "weight_quant_bits": 8}
    wq8 = _made("convert", convert, runs / "wq8")
    calibration = models.calibration_images(folder / ".calibration", count=4, size=32)
    quantize = {"model": str(fp32), "output": str(folder / "model.int8.mnn"), "calibration": str(calibration)}
    int8 = _made("quantize", quantize, runs / "int8")
    medium = models.medium_net(folder / ".medium.onnx")
    slow = _made("convert", {"model": str(medium), "output": str(folder / "slow.mnn")}, runs / "slow")
    return Variants(folder, onnx, fp32, fp16, wq8, int8, slow)
