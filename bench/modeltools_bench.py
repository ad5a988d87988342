"""Model-tools benchmarks: conversion overhead, benchmark fidelity, per-op profiling overhead.

    python bench/modeltools_bench.py [--repeats N]

1. Conversion through our runner (fresh contained worker, what the API starts) against
   ``_tools.mnnconvert`` in a bare fresh process, same model, interleaved: ratio of medians.
2. Our benchmark tool's median latency against a plain ``runSession`` loop measured beside it.
3. Per-op profiling overhead: median of the callback-timed runs against the plain median.
The model is a ~430 M-MAC, 2.3 M-parameter conv net generated with ``onnx.helper``.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.modeltools.pool import WorkerPool  # noqa: E402
from server.modeltools.runner import Limits, WorkerSpec  # noqa: E402
from tests.fakes import models  # noqa: E402

LIMITS = Limits(timeout_s=600)
SPARE_READY_SECONDS = 60.0
BARE_CONVERT = "import sys, _tools; _tools.mnnconvert(['mnnconvert', *sys.argv[1:]])"
PLAIN_LOOP = """
import json, statistics, sys, time
import MNN, numpy as np
net = MNN.Interpreter(sys.argv[1])
session = net.createSession({"numThread": 1})
tensor = net.getSessionInput(session)
shape = tuple(tensor.getShape())
data = np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)
tensor.copyFrom(MNN.Tensor(shape, MNN.Halide_Type_Float, data, MNN.Tensor_DimensionType_Caffe))
for _ in range(int(sys.argv[2])):
    net.runSession(session)
times = []
for _ in range(int(sys.argv[3])):
    start = time.perf_counter()
    net.runSession(session)
    times.append((time.perf_counter() - start) * 1000)
print(json.dumps({"median_ms": statistics.median(times)}))
"""


POOL = WorkerPool(size=1, limits=LIMITS)


def ours(tool: str, args: dict, run_dir: Path) -> tuple[float, dict]:
    """One run the way the API starts it: through the pool, timed from submit to outcome."""
    wait_for_spare()
    start = time.perf_counter()
    outcome = POOL.submit(WorkerSpec(tool, args, run_dir, LIMITS)).future.result()
    elapsed = time.perf_counter() - start
    if outcome.status != "succeeded":
        raise SystemExit(f"{tool} failed: {outcome.error}")
    return elapsed, outcome.result or {}


def wait_for_spare() -> None:
    """A server between requests has its spare worker ready (its imports done); give it the
    same chance. There is none before the first run."""
    POOL.spare_ready(SPARE_READY_SECONDS)


def bare_convert(onnx_path: Path, output: Path) -> float:
    argv = [
        "-f",
        "ONNX",
        "--modelFile",
        str(onnx_path),
        "--MNNModel",
        str(output),
        "--bizCode",
        "MNN",
        "--keepInputFormat=1",
    ]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", BARE_CONVERT, *argv], check=True, capture_output=True)
    elapsed = time.perf_counter() - start
    if not output.is_file():
        raise SystemExit("bare conversion wrote no model")
    return elapsed


def conversion(folder: Path, model: Path, repeats: int) -> dict:
    """Interleaved pairs, alternating which goes first; the figure is the median pair ratio."""
    runner_s, bare_s = [], []
    for index in range(repeats):
        out, bare_out = folder / f"ours{index}.mnn", folder / f"bare{index}.mnn"
        args = {"model": str(model), "output": str(out)}
        if index % 2:
            bare_s.append(bare_convert(model, bare_out))
        runner_s.append(ours("convert", args, folder / f"convert{index}")[0])
        if not index % 2:
            bare_s.append(bare_convert(model, bare_out))
    ratios = [a / b for a, b in zip(runner_s, bare_s, strict=True)]
    return {
        "runner_s": statistics.median(runner_s),
        "bare_s": statistics.median(bare_s),
        "ratio": statistics.median(ratios),
    }


def plain_median(model: Path, warmup: int, loops: int) -> float:
    command = [sys.executable, "-c", PLAIN_LOOP, str(model), str(warmup), str(loops)]
    out = subprocess.run(command, check=True, capture_output=True, text=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1])["median_ms"])


def fidelity(folder: Path, model: Path, repeats: int, loops: int) -> dict:
    """Our benchmark tool beside a plain loop, in interleaved pairs; then profiling overhead."""
    ratios, ours_ms, plain_ms = [], [], []
    args = {"model": str(model), "warmup": 20, "loops": loops, "per_op": False}
    for index in range(repeats):
        _, result = ours("benchmark", args, folder / f"bench{index}")
        plain = plain_median(model, 20, loops)
        ours_ms.append(result["median_ms"])
        plain_ms.append(plain)
        ratios.append(result["median_ms"] / plain)
    profiled = {**args, "per_op": True, "per_op_loops": loops}
    overheads, coverage = [], []
    for index in range(repeats):
        _, result = ours("benchmark", profiled, folder / f"profile{index}")
        overheads.append(result["profiled_median_ms"] / result["median_ms"] - 1)
        coverage.append(result["op_coverage"])
    return {
        "ours_median_ms": statistics.median(ours_ms),
        "plain_median_ms": statistics.median(plain_ms),
        "deviation": statistics.median(ratios) - 1,
        "per_op_overhead": statistics.median(overheads),
        "op_sum_vs_profiled": statistics.median(coverage),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--loops", type=int, default=200)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        onnx_model = models.bench_net(folder / "bench.onnx")
        mmacs = models.macs(onnx_model) / 1e6
        ours("inspect", {"model": str(onnx_model)}, folder / "first")  # a server already in use
        convert = conversion(folder, onnx_model, options.repeats)
        bench = fidelity(folder, folder / "ours0.mnn", options.repeats, options.loops)
    POOL.shutdown()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"model: {mmacs:.0f} M-MAC, ONNX {onnx_model.name}")
    print(
        f"convert: runner {convert['runner_s']:.3f} s, bare {convert['bare_s']:.3f} s, "
        f"ratio {convert['ratio']:.3f} (target <= 1.25)"
    )
    print(
        f"benchmark: ours {bench['ours_median_ms']:.3f} ms, plain runSession "
        f"{bench['plain_median_ms']:.3f} ms, deviation {bench['deviation']:+.1%} "
        "(target within +-5%)"
    )
    print(
        f"per-op profiling overhead {bench['per_op_overhead']:+.1%} (target <= 10%); "
        f"per-op sum / run total (median per run) {bench['op_sum_vs_profiled']:.3f}"
    )


if __name__ == "__main__":
    main()
