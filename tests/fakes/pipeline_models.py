"""Three real models with the shapes of an OCR chain — a text detector (a probability map at
any size), an orientation classifier (two classes, ``0`` and ``180``) and a CTC recogniser
(``[1, 3, 32, width]`` → one distribution over blank + 4 characters per 4 columns) — exported
from torch with ``dynamic_axes``, with their specs and a ``pipeline.toml`` that chains them
through ``map_to_boxes``, ``crop`` and ``rotate``.

The detector's weights are set, not trained: it scores how bright a pixel is (a sigmoid of the
channel mean), so on scikit-image's photo of coins it finds the coins. The other two are seeded
random networks: what they answer is not meaningful, only that every run answers the same.
"""

import warnings
from pathlib import Path

import torch
from torch import nn

PIPELINE = """\
format = 1
name = "coins"

[[stages]]
id = "detect"
model = "detector.mnn"

[[stages]]
id = "boxes"
step = "map_to_boxes"
input = "detect"
output = "score"
threshold = 0.5
min_area = 40
label = "coin"

[[stages]]
id = "crops"
step = "crop"
input = "boxes"
image = "image"
pad = 2

[[stages]]
id = "orientation"
model = "orientation.mnn"
input = "crops"

[[stages]]
id = "upright"
step = "rotate"
input = "crops"
by = "orientation"
when_labels = ["180"]

[[stages]]
id = "read"
model = "recogniser.mnn"
input = "upright"
"""

SPECS = {
    "detector": {
        "inputs": [
            {
                "name": "image",
                "shape": [1, 3, -1, -1],
                "default_shape": [1, 3, 192, 240],
                "kind": "image",
                "layout": "NCHW",
                "scale": 1 / 255,
            }
        ],
        "outputs": [{"name": "score", "kind": "tensor"}],
    },
    "orientation": {
        "inputs": [
            {
                "name": "image",
                "shape": [1, 3, -1, -1],
                "default_shape": [1, 3, 32, 32],
                "kind": "image",
                "layout": "NCHW",
                "scale": 1 / 255,
                "mean": [0.5],
                "std": [0.25],
            }
        ],
        "outputs": [{"name": "logits", "kind": "logits", "labels": ["0", "180"]}],
    },
    "recogniser": {
        "inputs": [
            {
                "name": "crop",
                "shape": [1, 3, 32, -1],
                "default_shape": [1, 3, 32, 64],
                "kind": "image",
                "layout": "NCHW",
                "resize": "letterbox",
                "scale": 1 / 255,
            }
        ],
        "outputs": [{"name": "logits", "kind": "text", "characters": "abcd"}],
    },
}


class _Bright(nn.Module):
    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid((image.mean(dim=1, keepdim=True) - 0.45) * 30)


class _Orientation(nn.Module):
    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.features = nn.Conv2d(3, channels, 3, padding=1, stride=2)
        self.head = nn.Linear(channels, 2)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.features(image)).mean(dim=(2, 3)))


class _Recogniser(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Conv2d(3, 16, 3, padding=1, stride=4)
        self.head = nn.Linear(16, 5)

    def forward(self, crop: torch.Tensor) -> torch.Tensor:
        columns = torch.relu(self.features(crop)).mean(dim=2)  # [1, 16, width / 4]
        return self.head(columns.transpose(1, 2))  # [1, width / 4, 5]


def _export(
    module: nn.Module,
    sample: torch.Tensor,
    path: Path,
    names: tuple[str, str],
    axes: dict[str, dict[int, str]],
) -> Path:
    module.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module,
            (sample,),
            str(path),
            input_names=[names[0]],
            output_names=[names[1]],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )
    return path


def export_all(folder: Path) -> dict[str, Path]:
    """The three ONNX models in ``folder``, by stage name."""
    torch.manual_seed(0)
    return {
        "detector": _export(
            _Bright(),
            torch.zeros(1, 3, 64, 64),
            folder / "detector.onnx",
            ("image", "score"),
            {"image": {2: "height", 3: "width"}, "score": {2: "height", 3: "width"}},
        ),
        "orientation": _export(
            _Orientation(),
            torch.zeros(1, 3, 32, 32),
            folder / "orientation.onnx",
            ("image", "logits"),
            {"image": {2: "height", 3: "width"}},
        ),
        "recogniser": _export(
            _Recogniser(),
            torch.zeros(1, 3, 32, 64),
            folder / "recogniser.onnx",
            ("crop", "logits"),
            {"crop": {3: "width"}, "logits": {1: "steps"}},
        ),
    }


def build(folder: Path, convert) -> Path:
    """A project-like folder with the three ``.mnn`` models (``convert(onnx, mnn)`` makes each),
    their specs and ``pipeline.toml``; returns the pipeline file."""
    from device_bridge.runtime import spec as model_spec

    folder.mkdir(parents=True, exist_ok=True)
    for name, source in export_all(folder).items():
        target = folder / f"{name}.mnn"
        convert(source, target)
        model_spec.sidecar(target).write_text(model_spec.dumps(model_spec.from_dict(SPECS[name])))
    path = folder / "pipeline.toml"
    path.write_text(PIPELINE)
    return path


def wide_orientation(folder: Path, convert, channels: int = 512) -> Path:
    """A bigger orientation classifier (``channels`` features, not 8) beside the pipeline's, as
    ``orientation_wide.mnn`` with the same spec: a variant of the ``orientation`` stage."""
    from device_bridge.runtime import spec as model_spec

    torch.manual_seed(0)
    source = _export(
        _Orientation(channels),
        torch.zeros(1, 3, 32, 32),
        folder / "orientation_wide.onnx",
        ("image", "logits"),
        {"image": {2: "height", 3: "width"}},
    )
    target = folder / "orientation_wide.mnn"
    convert(source, target)
    model_spec.sidecar(target).write_text(model_spec.dumps(model_spec.from_dict(SPECS["orientation"])))
    return target


def batched_orientation(folder: Path, convert) -> Path:
    """The pipeline's orientation classifier (the same seeded weights) exported with a dynamic
    batch dim, as ``orientation_batched.mnn`` whose spec declares it (``-1``)."""
    from device_bridge.runtime import spec as model_spec

    torch.manual_seed(0)
    source = _export(
        _Orientation(),
        torch.zeros(1, 3, 32, 32),
        folder / "orientation_batched.onnx",
        ("image", "logits"),
        {"image": {0: "batch", 2: "height", 3: "width"}, "logits": {0: "batch"}},
    )
    target = folder / "orientation_batched.mnn"
    convert(source, target)
    declared = {**SPECS["orientation"]["inputs"][0], "shape": [-1, 3, -1, -1]}
    spec = {**SPECS["orientation"], "inputs": [declared]}
    model_spec.sidecar(target).write_text(model_spec.dumps(model_spec.from_dict(spec)))
    return target
