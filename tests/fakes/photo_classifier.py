"""A real image classifier and the real ImageFolder it was trained on, made from four of the
photos scikit-image ships (tests/fakes/photos.py): astronaut, cat, coffee and rocket, one class
each.

* ``make_dataset``: ``photos/train/<class>/`` and ``photos/val/<class>/`` hold random crops of
  the class's photo (a third to four fifths of its short side, anywhere in it, mirrored half the
  time, brightness changed by up to a quarter) at 64 × 64, JPEG and PNG in turn. The crops are
  small enough that some look alike across classes: the net is right on most, not all.
* ``train``: a three-convolution net trained on the train split with torch for a few seconds,
  exported to ONNX with a dynamic batch, height and width (``image [batch, 3, height, width]``
  → ``logits [batch, 4]``), with its model spec (labels, preprocessing, default 64 × 64).
* ``build``: all of that, plus the model converted to MNN fp32 and quantized to int8 (the train
  split as calibration, the val split for the accuracy drop) through the real tool workers, each
  with its spec; about 15 s, so the tests make it once per session (tests/conftest.py).
"""

import shutil
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image, ImageEnhance
from torch import nn

from device_bridge.runtime import preprocess
from device_bridge.runtime import spec as model_spec
from tests.fakes.photos import photo

CLASSES = {"astronaut": "astronaut.png", "cat": "chelsea.png", "coffee": "coffee.png", "rocket": "rocket.jpg"}
SIZE = 64
SPEC = {
    "inputs": [{
        "name": "image", "shape": [-1, 3, -1, -1], "default_shape": [1, 3, SIZE, SIZE], "kind": "image",
        "layout": "NCHW", "color": "RGB", "resize": "stretch", "scale": 1 / 255,
        "mean": [0.5, 0.5, 0.5], "std": [0.25, 0.25, 0.25],
    }],
    "outputs": [{"name": "logits", "kind": "logits", "labels": sorted(CLASSES)}],
}


@dataclass(frozen=True)
class PhotoClassifier:
    folder: Path
    dataset: Path  # photos/: train/ and val/ class folders
    onnx: Path
    mnn: Path  # fp32, height and width open
    static: Path  # fp32 at 64 × 64
    int8: Path  # quantized from ``static``
    quantized: dict[str, Any]  # the quantize run's result (calibration and the accuracy drop)


def _crop(source: Image.Image, rng: np.random.Generator) -> Image.Image:
    width, height = source.size
    side = int(min(width, height) * rng.uniform(0.33, 0.8))
    left = int(rng.integers(0, width - side + 1))
    top = int(rng.integers(0, height - side + 1))
    crop = source.crop((left, top, left + side, top + side)).resize((SIZE, SIZE), Image.Resampling.BILINEAR)
    if rng.random() < 0.5:
        crop = crop.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return ImageEnhance.Brightness(crop).enhance(float(rng.uniform(0.75, 1.25)))


def make_dataset(folder: Path, train: int = 48, val: int = 12, seed: int = 0) -> Path:
    """``folder`` with ``train/<class>/`` and ``val/<class>/`` crops of the photos."""
    rng = np.random.default_rng(seed)
    for name, file in CLASSES.items():
        with Image.open(photo(file)) as image:
            source = image.convert("RGB")
        for split, count in (("train", train), ("val", val)):
            target = folder / split / name
            target.mkdir(parents=True, exist_ok=True)
            for index in range(count):
                crop = _crop(source, rng)
                if index % 2:
                    crop.save(target / f"{name}_{index:03d}.png")
                else:
                    crop.save(target / f"{name}_{index:03d}.jpg", quality=90)
    return folder


class _Net(nn.Module):
    def __init__(self, classes: int) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.head = nn.Linear(32, classes)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(image).mean(dim=(2, 3)))


def _tensors(folder: Path) -> tuple[torch.Tensor, torch.Tensor]:
    own = model_spec.from_dict(SPEC).inputs[0]
    images, labels = [], []
    for index, name in enumerate(sorted(CLASSES)):
        for path in sorted((folder / name).iterdir()):
            images.append(preprocess.tensor(own, [1, 3, SIZE, SIZE], path)[0][0])
            labels.append(index)
    return torch.from_numpy(np.stack(images)), torch.tensor(labels)


def train(dataset: Path, path: Path, epochs: int = 30, seed: int = 0) -> Path:
    """The net trained on ``dataset/train`` (as the spec preprocesses it), exported to ``path``
    with its spec beside it."""
    torch.manual_seed(seed)
    images, labels = _tensors(dataset / "train")
    net = _Net(len(CLASSES))
    optimiser = torch.optim.Adam(net.parameters(), lr=0.01)
    generator = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        order = torch.randperm(len(labels), generator=generator)
        for start in range(0, len(order), 32):
            batch = order[start:start + 32]
            optimiser.zero_grad()
            nn.functional.cross_entropy(net(images[batch]), labels[batch]).backward()
            optimiser.step()
    net.eval()
    with warnings.catch_warnings():
        # The TorchScript exporter is deprecated in favour of one that needs onnxscript.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            net, (torch.zeros(1, 3, SIZE, SIZE),), str(path), input_names=["image"], output_names=["logits"],
            dynamic_axes={"image": {0: "batch", 2: "height", 3: "width"}, "logits": {0: "batch"}},
            opset_version=17, dynamo=False,
        )
    write_spec(path)
    return path


def write_spec(model: Path, shape: list[int] | None = None) -> Path:
    """The classifier's spec beside ``model`` (``shape``: the input as that file declares it)."""
    data: dict[str, Any] = {"inputs": [dict(SPEC["inputs"][0])], "outputs": SPEC["outputs"]}
    if shape is not None:
        data["inputs"][0]["shape"] = shape
    path = model_spec.sidecar(model)
    path.write_text(model_spec.dumps(model_spec.from_dict(data)))
    return path


# (tool, worker arguments with absolute paths, the run's folder) → the outcome
RunTool = Callable[[str, dict[str, Any], Path], Any]


def run_worker_tool(tool: str, args: dict[str, Any], run_dir: Path) -> Any:
    """One tool through the real runner, in a fresh worker process."""
    from server.modeltools.runner import Limits, WorkerSpec, run_worker

    return run_worker(WorkerSpec(tool, args, run_dir, Limits(timeout_s=300)))


def build(folder: Path, run_tool: RunTool = run_worker_tool) -> PhotoClassifier:
    dataset = make_dataset(folder / "photos")
    onnx = train(dataset, folder / "classifier.onnx")
    mnn = folder / "classifier.mnn"
    outcome = run_tool("convert", {"model": str(onnx), "output": str(mnn)}, folder / "runs" / "convert")
    assert outcome.status == "succeeded", outcome.error
    write_spec(mnn, [1, 3, -1, -1])  # the converter keeps height and width open, fixes batch at 1
    # MNN 3.6.1's quantizer crashes (SIGSEGV) on a model whose height and width are open: the
    # int8 model is quantized from a static conversion at the spec's default size.
    static = folder / "classifier.static.mnn"
    outcome = run_tool("convert", {"model": str(onnx), "output": str(static), "static": True,
                                   "input_shapes": {"image": [1, 3, SIZE, SIZE]}}, folder / "runs" / "static")
    assert outcome.status == "succeeded", outcome.error
    write_spec(static, [1, 3, SIZE, SIZE])
    int8 = folder / "classifier.int8.mnn"
    outcome = run_tool("quantize", {
        "model": str(static), "output": str(int8), "dataset": str(dataset), "format": "RGB",
        "mean": [127.5] * 3, "normal": [1 / 63.75] * 3,
    }, folder / "runs" / "quantize")
    assert outcome.status == "succeeded", outcome.error
    write_spec(int8, [1, 3, SIZE, SIZE])
    return PhotoClassifier(folder, dataset, onnx, mnn, static, int8, outcome.result)


def install(built: PhotoClassifier, root: Path) -> None:
    """The dataset (``photos/``) and the models with their specs, copied into ``root``."""
    shutil.copytree(built.dataset, root / "photos")
    for model in (built.onnx, built.mnn, built.static, built.int8):
        shutil.copy(model, root / model.name)
        shutil.copy(model_spec.sidecar(model), root / model_spec.sidecar(model).name)
