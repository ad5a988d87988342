"""Model tools on real architectures: conversion, inspect and per-op coverage, against bare MNN.

    python bench/model_zoo.py --torch-python PATH [--repeats N] [--only NAME,...]

The architectures are torchvision's (random weights, ``weights=None``: nothing is downloaded)
plus two small transformer encoders built with ``torch.nn``, exported to ONNX by a Python that
has torch and torchvision (``--torch-python``; they are not workbench dependencies: make one with
``python3 -m venv V && V/bin/pip install torch==2.14.1 torchvision==0.29.1 onnx==1.23.2``).

Our runs start as the server starts them: in the sandbox of their project, through the pool,
taking the spare worker started ahead of need in that sandbox (``bench/sandboxed_runs.py``).
Per model, each way ``--repeats`` times in turn (the order turned round every repeat, the spare
settled before each), medians, and per way the median of its ratios to the bare call of the same
repeat:
1. convert: ours against ``_tools.mnnconvert`` in a bare fresh process (target <= 1.1), and
   "before": a fresh sandboxed worker per run, as the server ran them before the spare was kept
   in the sandbox;
2. inspect: ours (and "before") against a bare fresh process that loads the model into MNN
   (``Interpreter`` + ``createSession``) (target <= 1.2); also those two calls alone, timed in
   this process with MNN imported;
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
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import MNN  # noqa: E402

from bench.modeltools_bench import bare_convert  # noqa: E402
from bench.sandboxed_runs import SandboxedRuns  # noqa: E402
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


def load_in_process(model: Path) -> float:
    """The bare calls alone, in this process (MNN imported): ``Interpreter`` + ``createSession``."""
    start = time.perf_counter()
    net = MNN.Interpreter(str(model))
    net.createSession({"numThread": 1})
    elapsed = time.perf_counter() - start
    del net
    return elapsed


def interleaved(runs: SandboxedRuns, timed: dict[str, Callable[[int], float]], repeats: int) -> dict:
    """Each way ``repeats`` times, the order turned round each repeat, the spare settled before
    each; medians, and per way the median of its ratios to the first (the bare one) in the same
    repeat."""
    names, times = list(timed), {name: [] for name in timed}
    for index in range(repeats):
        order = names[index % len(names):] + names[:index % len(names)]
        for name in order:
            runs.settle()
            times[name].append(timed[name](index))
    bare = times[names[0]]
    return {name: (statistics.median(t), statistics.median([a / b for a, b in zip(t, bare, strict=True)]))
            for name, t in times.items()}


def measure(runs: SandboxedRuns, onnx_model: Path, repeats: int) -> dict:
    name, folder = onnx_model.stem, onnx_model.parent
    converted = folder / f"{name}.mnn"
    convert_args = {"model": str(onnx_model), "output": str(converted), "overwrite": True}
    runs.run("convert", convert_args)  # untimed: the spare is started after a first run, as in a server
    convert = interleaved(runs, {
        "bare": lambda i: bare_convert(onnx_model, folder / f"{name}.bare.mnn"),
        "ours": lambda i: runs.run("convert", convert_args)[0],
        "before": lambda i: runs.run("convert", convert_args, spare=False)[0],
    }, repeats)
    inspect = interleaved(runs, {
        "bare": lambda i: bare_load(converted),
        "ours": lambda i: runs.run("inspect", {"model": str(converted)})[0],
        "before": lambda i: runs.run("inspect", {"model": str(converted)}, spare=False)[0],
        "in_process": lambda i: load_in_process(converted),
    }, repeats)
    args = {"model": str(converted), "warmup": 3, "loops": 10, "per_op": True, "per_op_loops": 10}
    bench = runs.run("benchmark", args)[1]
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


HEADER = ("model", "convert ours s", "bare s", "ratio", "before s", "before ratio",
          "inspect ours s", "bare load s", "ratio", "before s", "before ratio",
          "load calls alone s", "ours / calls alone", "ops only / profiled run",
          "table / profiled run", "table / plain run", "same bytes")


def print_row(row: dict) -> None:
    c, i = row["convert"], row["inspect"]
    figures = [c["ours"][0], c["bare"][0], c["ours"][1], c["before"][0], c["before"][1],
               i["ours"][0], i["bare"][0], i["ours"][1], i["before"][0], i["before"][1],
               i["in_process"][0], i["ours"][0] / i["in_process"][0],
               row["ops_only"], row["table"], row["table_vs_plain"]]
    cells = [row["name"], *(f"{x:.2f}" for x in figures), "yes" if row["identical"] else "NO"]
    print("| " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch-python", required=True, help="a Python with torch and torchvision")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", help="comma-separated architecture names")
    options = parser.parse_args()
    names = options.only.split(",") if options.only else list(ARCHITECTURES)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores, "
          f"{options.repeats} repeats")
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "---|" * len(HEADER))
    with tempfile.TemporaryDirectory() as tmp:
        runs = SandboxedRuns(Path(tmp))
        try:
            for name in names:
                print_row(measure(runs, export(options.torch_python, name, runs.project), options.repeats))
        finally:
            runs.close()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")


if __name__ == "__main__":
    main()
