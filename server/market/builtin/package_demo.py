"""Run this package's model on its sample inputs and print what it finds.

Usage: ``python demo.py [INPUTS.npy]``. It needs only numpy and MNN, so it runs the same on this
machine and on a device agent. The model, the pre-processing (mean, std) and the labels or the
anomaly threshold all come from ``algorithm.toml`` beside this file. Without an argument it
runs ``samples/inputs.npy`` and compares with ``samples/expected.json``.
"""

import json
import sys
import tomllib
from pathlib import Path

import MNN
import numpy as np

HERE = Path(__file__).resolve().parent


def load_manifest(folder: Path) -> dict:
    return tomllib.loads((folder / "algorithm.toml").read_text(encoding="utf-8"))


def preprocess(raw: np.ndarray, spec: dict) -> np.ndarray:
    """One raw sample → the model's input: batch of one, ``(x - mean) / std`` along axis 1."""
    data = raw.astype(np.float32)[None]
    shape = [1, -1] + [1] * (data.ndim - 2)
    if "mean" in spec:
        data = data - np.asarray(spec["mean"], dtype=np.float32).reshape(shape)
    if "std" in spec:
        data = data / np.asarray(spec["std"], dtype=np.float32).reshape(shape)
    return np.ascontiguousarray(data, dtype=np.float32)


def decide(values: np.ndarray, spec: dict) -> tuple[str, float]:
    """The answer and its score: the top label, or normal / anomaly against the threshold."""
    flat = values.reshape(-1)
    if "labels" in spec:
        best = int(flat.argmax())
        return spec["labels"][best], float(flat[best])
    score = float(flat[0])
    return ("anomaly" if score > spec["threshold"] else "normal"), score


def load_model(folder: Path, manifest: dict):
    model = next(f["path"] for f in manifest["files"] if f["role"] == "model")
    runtime = MNN.nn.create_runtime_manager(({"backend": "CPU", "numThread": 1},))
    return MNN.nn.load_module_from_file(
        str(folder / model), [manifest["inputs"][0]["name"]], [manifest["outputs"][0]["name"]],
        runtime_manager=runtime)


def predict(net, raw: np.ndarray, manifest: dict) -> tuple[str, float]:
    data = preprocess(raw, manifest["inputs"][0])
    output = net.forward(MNN.expr.const(data, list(data.shape), MNN.expr.NCHW))
    return decide(np.array(output.read()), manifest["outputs"][0])


def main(argv: list[str]) -> int:
    manifest = load_manifest(HERE)
    inputs = np.load(argv[0] if argv else HERE / "samples" / "inputs.npy")
    expected = None if argv else json.loads((HERE / "samples" / "expected.json").read_text())
    net = load_model(HERE, manifest)
    correct = 0
    for index, raw in enumerate(inputs):
        answer, score = predict(net, raw, manifest)
        note = "" if expected is None else f" (expected {expected[index]})"
        correct += expected is not None and answer == expected[index]
        print(f"sample {index}: {answer} score={score:.4f}{note}", flush=True)
    if expected is not None:
        print(f"{manifest['id']}: {correct}/{len(inputs)} samples as expected", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
