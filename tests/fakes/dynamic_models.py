"""Real models with dynamic input dims, exported from torch as pretrained detectors and
recognisers are: ``torch.onnx.export`` with ``dynamic_axes`` (the TorchScript exporter, which
needs no extra package).

* ``detector``: conv → relu → conv, input ``image`` ``[1, 3, height, width]``, output
  ``score`` ``[1, 1, height, width]`` (a text detector's probability map).
* ``recogniser``: input ``crop`` ``[batch, 3, 48, width]``, output ``logits``
  ``[batch, 8, 12, width / 4]`` (a text recogniser's per-column features).
* ``classifier`` (below): input ``image`` ``[batch, 3, height, width]``, output ``logits``.
* ``constant``: the detector's shape whose output is 0 everywhere (a last bias of -100 before
  a relu): a reference that cannot tell a right model from a wrong one.
"""

import warnings
from pathlib import Path

import torch
from torch import nn


class _Detector(nn.Module):
    def __init__(self, bias: float | None = None) -> None:
        super().__init__()
        self.features = nn.Conv2d(3, 16, 3, padding=1)
        self.score = nn.Conv2d(16, 1, 3, padding=1)
        self.clamp = bias is not None
        if bias is not None:
            nn.init.constant_(self.score.bias, bias)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        score = self.score(torch.relu(self.features(image)))
        return torch.relu(score) if self.clamp else score


class _Recogniser(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, stride=2)
        self.pool = nn.MaxPool2d(2)

    def forward(self, crop: torch.Tensor) -> torch.Tensor:
        return self.pool(torch.relu(self.conv(crop)))


def _export(module: nn.Module, sample: torch.Tensor, path: Path, names: tuple[str, str],
            axes: dict[int, str], output_axes: dict[int, str] | None = None) -> Path:
    module.eval()
    with warnings.catch_warnings():
        # The TorchScript exporter is deprecated in favour of one that needs onnxscript.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module, (sample,), str(path), input_names=[names[0]], output_names=[names[1]],
            dynamic_axes={names[0]: axes, names[1]: axes if output_axes is None else output_axes},
            opset_version=17, dynamo=False,
        )
    return path


def detector(path: Path) -> Path:
    torch.manual_seed(0)
    return _export(_Detector(), torch.zeros(1, 3, 64, 64), path, ("image", "score"),
                   {2: "height", 3: "width"})


def recogniser(path: Path) -> Path:
    torch.manual_seed(0)
    return _export(_Recogniser(), torch.zeros(2, 3, 48, 64), path, ("crop", "logits"),
                   {0: "batch", 3: "width"})


def constant(path: Path) -> Path:
    torch.manual_seed(0)
    return _export(_Detector(bias=-100.0), torch.zeros(1, 3, 64, 64), path, ("image", "score"),
                   {2: "height", 3: "width"})


class _Classifier(nn.Module):
    """conv → relu → global average pool → linear: any image size in, one score per class out."""

    def __init__(self, classes: int) -> None:
        super().__init__()
        self.features = nn.Conv2d(3, 8, 3, padding=1, stride=2)
        self.head = nn.Linear(8, classes)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.features(image)).mean(dim=(2, 3)))


def classifier(path: Path, classes: int = 3) -> Path:
    """input ``image`` ``[batch, 3, height, width]``, output ``logits`` ``[batch, classes]``."""
    torch.manual_seed(0)
    return _export(_Classifier(classes), torch.zeros(1, 3, 32, 32), path, ("image", "logits"),
                   {0: "batch", 2: "height", 3: "width"}, output_axes={0: "batch"})
