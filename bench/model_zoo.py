"""Model tools on real architectures: conversion, inspect and per-op coverage, against bare MNN.

    python bench/model_zoo.py --torch-python PATH [--repeats N] [--only NAME,...]

The architectures are torchvision's (random weights, ``weights=None``: nothing is downloaded)
plus two small transformer encoders built with ``torch.nn``, exported to ONNX by a Python that
has torch and torchvision (``--torch-python``; they are not workbench dependencies: make one with
``python3 -m venv V && V/bin/pip install torch==2.14.1 torchvision==0.29.1 onnx==1.23.2``).

Per model, in interleaved pairs, medians over ``--repeats``:
1. convert: our runner (a pool worker, what the API starts) against ``_tools.mnnconvert`` in a bare
   fresh process (target <= 1.25);
2. inspect: our inspect run against a bare fresh process that loads the model into MNN
   (``Interpreter`` + ``createSession``) (target <= 1.5);
3. per-op coverage, three ways: the ops' own times over the profiled run (raw: what the op
   callbacks see), the whole per-op table (ops + its ``(outside ops)`` row) over the profiled run
   (what the table accounts for), and the whole table over the plain timed runs' median (the
   table against a run without callbacks);
4. whether our converted file is the bare converter's, byte for byte apart from the uuid MNN
   draws for every conversion.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.modeltools_bench import POOL, bare_convert, ours  # noqa: E402
from server.modeltools.mnnfile import read_header  # noqa: E402

ARCHITECTURES = {
    "mobilenet_v2": (1, 3, 224, 224),
    "mobilenet_v3_small": (1, 3, 224, 224),
    "resnet18": (1, 3, 224, 224),
    "efficientnet_b0": (1, 3, 224, 224),
    "shufflenet_v2_x1_0": (1, 3, 224, 224),
    "squeezenet1_1": (1, 3, 224, 224),
    "regnet_y_400mf": (1, 3, 224, 224),
    "convnext_tiny": (1, 3, 224, 224),
    "transformer_s": (1, 64, 256),
    "transformer_m": (1, 128, 384),
}
EXPORT = """
import sys, torch, torchvision
name, out, shape = sys.argv[1], sys.argv[2], [int(d) for d in sys.argv[3].split(",")]
torch.manual_seed(0)
torch.backends.mha.set_fastpath_enabled(False)  # the fused encoder kernel has no ONNX export
if name.startswith("transformer"):
    width = shape[-1]
    layer = torch.nn.TransformerEncoderLayer(width, width // 64, 4 * width, batch_first=True)
    model = torch.nn.TransformerEncoder(layer, 4, enable_nested_tensor=False)
else:
    model = getattr(torchvision.models, name)(weights=None)
model.eval()
with torch.no_grad():
    torch.onnx.export(model, torch.randn(shape), out, opset_version=17, dynamo=False,
                      input_names=["input"], output_names=["output"])
"""
BARE_LOAD = "import sys, MNN; net = MNN.Interpreter(sys.argv[1]); net.createSession({'numThread': 1})"


def export(torch_python: str, name: str, folder: Path) -> Path:
    out = folder / f"{name}.onnx"
    shape = ",".join(str(d) for d in ARCHITECTURES[name])
    subprocess.run([torch_python, "-c", EXPORT, name, str(out), shape], check=True, capture_output=True)
    return out


def same_model(a: Path, b: Path) -> bool:
    """Byte-identical apart from the uuid, which MNN draws anew for every conversion."""
    a_bytes, b_bytes = a.read_bytes(), b.read_bytes()
    a_uuid, b_uuid = (read_header(p)["uuid"].encode() for p in (a, b))
    return a_bytes.replace(a_uuid, b"-" * len(a_uuid)) == b_bytes.replace(b_uuid, b"-" * len(b_uuid))


def bare_load(model: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", BARE_LOAD, str(model)], check=True, capture_output=True)
    return time.perf_counter() - start


def paired(first, second, repeats: int) -> tuple[float, float, float]:
    """Median of each and of the pair ratios, alternating which runs first."""
    a_s, b_s = [], []
    for index in range(repeats):
        if index % 2:
            b_s.append(second(index))
        a_s.append(first(index))
        if not index % 2:
            b_s.append(second(index))
    ratios = [a / b for a, b in zip(a_s, b_s, strict=True)]
    return statistics.median(a_s), statistics.median(b_s), statistics.median(ratios)


def measure(folder: Path, onnx_model: Path, repeats: int) -> dict:
    name = onnx_model.stem
    converted = folder / f"{name}.mnn"

    def ours_convert(i: int) -> float:
        return ours("convert", {"model": str(onnx_model), "output": str(converted)}, folder / f"{name}-c{i}")[
            0
        ]

    ours_convert(-1)  # untimed: the pool's spare is started after a first run, as in a server
    convert = paired(ours_convert, lambda i: bare_convert(onnx_model, folder / f"{name}.bare.mnn"), repeats)

    def ours_inspect(i: int) -> float:
        return ours("inspect", {"model": str(converted)}, folder / f"{name}-i{i}")[0]

    inspect = paired(ours_inspect, lambda i: bare_load(converted), repeats)
    args = {"model": str(converted), "warmup": 3, "loops": 10, "per_op": True, "per_op_loops": 10}
    bench = ours("benchmark", args, folder / f"{name}-b")[1]
    identical = same_model(converted, folder / f"{name}.bare.mnn")
    return {
        "name": name,
        "convert": convert,
        "inspect": inspect,
        "ops_only": bench["op_total_ms"] / bench["profiled_median_ms"],
        "table": sum(op["ms"] for op in bench["ops"]) / bench["profiled_median_ms"],
        "table_vs_plain": sum(op["ms"] for op in bench["ops"]) / bench["median_ms"],
        "identical": identical,
    }


def print_row(row: dict) -> None:
    c_ours, c_bare, c_ratio = row["convert"]
    i_ours, i_bare, i_ratio = row["inspect"]
    print(
        f"| {row['name']} | {c_ours:.2f} | {c_bare:.2f} | {c_ratio:.2f} | {i_ours:.2f} | {i_bare:.2f} | "
        f"{i_ratio:.2f} | {row['ops_only']:.2f} | {row['table']:.2f} | {row['table_vs_plain']:.2f} | "
        f"{'yes' if row['identical'] else 'NO'} |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch-python", required=True, help="a Python with torch and torchvision")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", help="comma-separated architecture names")
    options = parser.parse_args()
    names = options.only.split(",") if options.only else list(ARCHITECTURES)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores, {options.repeats} repeats")
    header = ("model", "convert ours s", "bare s", "ratio", "inspect ours s", "bare load s", "ratio",
              "ops only / profiled run", "table / profiled run", "table / plain run", "same bytes")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name in names:
            print_row(measure(folder, export(options.torch_python, name, folder), options.repeats))
    POOL.shutdown()


if __name__ == "__main__":
    main()
