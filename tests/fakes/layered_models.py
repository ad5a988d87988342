"""Real torch exports for per-layer compare, made with ``torch.onnx.export`` (the TorchScript
exporter, ``dynamo=False``).

* ``residual``: a torchvision-like net — Conv → BatchNorm → ReLU stem, a residual block with a
  strided downsample, global average pool, Linear; input ``image`` ``[batch, 3, 32, 32]``,
  output ``logits`` ``[batch, 10]``. Exported without constant folding, so the BatchNorm
  nodes stay in the ONNX graph for the converter to fuse into the convolutions.
* ``residual(broken=True)``: the same net, weights and names, but for the block's first
  convolution's weights: a model that goes wrong at one known layer.
* ``channel_mean``: ``image`` ``[1, 3, height, width]`` → its mean over channels ``[1, height,
  width]`` in one node: as many output values as the detector of ``dynamic_models`` and
  nothing else in common with it.
"""

import warnings
from pathlib import Path

import torch
from torch import nn

BROKEN_LAYER = "/block/block.2/Relu_output_0"  # what the block's first conv+bn+relu computes


class _Residual(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.block = nn.Sequential(
            nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16),
        )
        self.down = nn.Sequential(nn.Conv2d(8, 16, 1, stride=2, bias=False), nn.BatchNorm2d(16))
        self.fc = nn.Linear(16, 10)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        features = self.stem(image)
        features = torch.relu(self.block(features) + self.down(features))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(features, 1), 1))


class _ChannelMean(nn.Module):
    def forward(self, image: torch.Tensor) -> torch.Tensor:
        return image.mean(dim=1)


def _export(module: nn.Module, sample: torch.Tensor, path: Path, names: tuple[str, str],
            axes: dict[str, dict[int, str]]) -> Path:
    module.eval()
    with warnings.catch_warnings():
        # The TorchScript exporter is deprecated in favour of one that needs onnxscript.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module, (sample,), str(path), input_names=[names[0]], output_names=[names[1]],
            dynamic_axes=axes, opset_version=17, dynamo=False,
            do_constant_folding=False,
        )
    return path


def residual(path: Path, broken: bool = False) -> Path:
    torch.manual_seed(0)
    net = _Residual()
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, nn.BatchNorm2d):  # statistics a trained net would have
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
        if broken:
            net.block[0].weight.mul_(-1.0)
    return _export(net, torch.zeros(1, 3, 32, 32), path, ("image", "logits"),
                   {"image": {0: "batch"}, "logits": {0: "batch"}})


def channel_mean(path: Path) -> Path:
    return _export(_ChannelMean(), torch.zeros(1, 3, 64, 64), path, ("image", "heat"),
                   {"image": {2: "height", 3: "width"}, "heat": {1: "height", 2: "width"}})
