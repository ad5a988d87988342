"""A ``.wav`` as a pipeline's input (docs/pipelines.md#audio-inputs): read with the standard
``wave`` module, its sample rate and channels checked against the audio input of the first
stage that reads it and refused by name when they do not fit (never resampled or mixed down),
then fed whole (an open length) or in the spec's window."""

import io
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from device_bridge.runtime import preprocess
from device_bridge.runtime.spec import InputSpec


@dataclass
class Audio:
    """A clip's mono samples in [-1, 1] at its rate."""

    samples: np.ndarray
    sample_rate: int

    def summary(self) -> dict[str, Any]:
        return {
            "kind": "audio",
            "samples": int(self.samples.size),
            "sample_rate": self.sample_rate,
            "seconds": round(self.samples.size / self.sample_rate, 4),
        }


def read(path: Path, spec: InputSpec, model: str) -> Audio:
    """The file's samples for ``model``'s audio input ``spec``; ``InputFileError`` naming what
    does not fit (rate, channels, sample width, not a wav)."""
    try:
        with wave.open(io.BytesIO(path.read_bytes())) as reader:
            channels = reader.getnchannels()
    except (wave.Error, EOFError) as exc:
        raise preprocess.InputFileError(path, f"not a PCM wav file ({exc})") from None
    except OSError as exc:
        raise preprocess.InputFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    if channels != 1:
        raise preprocess.InputFileError(
            path, f"has {channels} channels; input {spec.name!r} of {model} takes one (mono)"
        )
    assert spec.sample_rate is not None  # an audio input's spec always says it
    try:
        samples = preprocess.audio_samples(path, spec.sample_rate)
    except preprocess.InputFileError as exc:
        raise preprocess.InputFileError(path, f"{exc.reason} ({spec.name!r} of {model})") from None
    return Audio(samples, spec.sample_rate)


def tensor(spec: InputSpec, shape: list[int], audio: Audio) -> np.ndarray:
    """The clip whole when the spec leaves the last dim open, else in its window (zero-padded
    or cut, as a single model's run does)."""
    if spec.shape and spec.shape[-1] == -1:
        shape = [*shape[:-1], int(audio.samples.size)]
    return preprocess.audio_tensor(spec, shape, audio.samples)
