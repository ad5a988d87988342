"""Shared by the demos of the real pretrained algorithms (shipped as ``demo_common.py``).

Needs only numpy and MNN, so a demo runs the same here and on a device agent. The model, its
inputs and outputs come from ``algorithm.toml`` beside the demo; the samples and the answer each
should give from ``samples/expected.json``.
"""

import json
import tomllib
from collections.abc import Callable
from pathlib import Path

import MNN
import numpy as np

Answer = tuple[str, str]  # the answer compared with the expected one, and details to print


def manifest(folder: Path) -> dict:
    return tomllib.loads((folder / "algorithm.toml").read_text(encoding="utf-8"))


def load_net(model: Path, spec: dict | None = None):
    """The model as an MNN module with the inputs and outputs its package declares (or
    ``spec``, a model spec's tables)."""
    declared = manifest(model.parent) if spec is None else spec
    runtime = MNN.nn.create_runtime_manager(({"backend": "CPU", "numThread": 1},))
    return MNN.nn.load_module_from_file(
        str(model), [i["name"] for i in declared["inputs"]],
        [o["name"] for o in declared["outputs"]], runtime_manager=runtime)


def load(model: Path) -> tuple:
    """The model and the manifest of its package: what ``answer`` of a demo takes."""
    return load_net(model), manifest(model.parent)


def tensor(array: np.ndarray, layout: str = "NCHW", dtype=None):
    data_format = MNN.expr.NHWC if layout == "NHWC" else MNN.expr.NCHW
    if dtype is None:
        return MNN.expr.const(np.ascontiguousarray(array, dtype=np.float32), list(array.shape),
                              data_format)
    return MNN.expr.const(np.ascontiguousarray(array), list(array.shape), data_format, dtype)


def forward(net, inputs: list) -> list[np.ndarray]:
    outputs = net.forward(inputs)
    return [np.array(output.read(), dtype=np.float32) for output in outputs]


def _arguments(argv: list[str], folder: Path) -> tuple[Path, list[str]]:
    model = next(f["path"] for f in manifest(folder)["files"] if f["role"] == "model")
    if argv[:1] == ["--model"] and len(argv) >= 2:
        return folder / argv[1], argv[2:]
    return folder / model, argv


def main(folder: Path, load: Callable, answer: Callable[..., Answer], argv: list[str]) -> int:
    """``demo.py [--model FILE.mnn] [INPUT.npy]``: the samples (or one input of your own) through
    the model, one answer a line, and how many samples gave the answer expected."""
    model, rest = _arguments(argv, folder)
    net = load(model)
    if rest:
        found, details = answer(net, np.load(rest[0]))
        print(f"{rest[0]}: {found} {details}".rstrip(), flush=True)
        return 0
    samples = json.loads((folder / "samples" / "expected.json").read_text(encoding="utf-8"))
    correct = 0
    for sample in samples:
        found, details = answer(net, np.load(folder / sample["file"]))
        correct += found == sample["expected"]
        print(f"{sample['name']}: {found} (expected {sample['expected']}) {details}".rstrip(),
              flush=True)
    print(f"{manifest(folder)['id']}: {correct}/{len(samples)} samples as expected", flush=True)
    return 0
