"""A real audio model for pipelines: a loudness classifier exported from torch with an open
length (``[1, samples]`` at 16 kHz → logits for ``quiet`` and ``loud``, from the clip's mean
energy), with its spec and a one-stage ``pipeline.toml``; and ``.wav`` files written with the
standard ``wave`` module."""

import warnings
import wave
from pathlib import Path

import numpy as np
import torch
from torch import nn

RATE = 16000
PIPELINE = """\
format = 1
name = "loudness"

[[stages]]
id = "loudness"
model = "loudness.mnn"
"""
SPEC = {
    "inputs": [{"name": "wave", "shape": [1, -1], "kind": "audio", "layout": "NC", "sample_rate": RATE}],
    "outputs": [{"name": "logits", "kind": "logits", "labels": ["quiet", "loud"]}],
}


class _Loudness(nn.Module):
    def forward(self, samples: torch.Tensor) -> torch.Tensor:
        energy = (samples * samples).mean(dim=1, keepdim=True) * 100 - 1  # > 0 above an RMS of 0.1
        return torch.cat([-energy, energy], dim=1)


def build(folder: Path, convert) -> Path:
    """``loudness.mnn`` (``convert(onnx, mnn)`` makes it), its spec and the pipeline file."""
    from device_bridge.runtime import spec as model_spec

    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "loudness.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Loudness(), (torch.zeros(1, RATE),), str(source), input_names=["wave"],
                          output_names=["logits"], dynamic_axes={"wave": {1: "samples"}},
                          opset_version=17, dynamo=False)
    target = folder / "loudness.mnn"
    convert(source, target)
    model_spec.sidecar(target).write_text(model_spec.dumps(model_spec.from_dict(SPEC)))
    path = folder / "pipeline.toml"
    path.write_text(PIPELINE)
    return path


def wav(path: Path, samples: np.ndarray, rate: int = RATE, channels: int = 1) -> Path:
    """16-bit PCM ``samples`` (in [-1, 1], repeated on each channel) as a ``.wav``."""
    frames = np.repeat((samples * 32767).astype("<i2")[:, None], channels, axis=1)
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(channels)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(frames.tobytes())
    return path


def tone(seconds: float, amplitude: float, rate: int = RATE) -> np.ndarray:
    """A 440 Hz sine."""
    t = np.arange(int(seconds * rate)) / rate
    return (amplitude * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
