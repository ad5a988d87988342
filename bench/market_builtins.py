"""The built-in market algorithms: what one build costs, and each demo's per-sample latency
against a bare MNN forward of the same model in the same run.

* build: ``python -m server.market.builtin.build`` (training, ONNX export, conversion, held-out
  evaluation, timing) in a subprocess, wall and CPU time (user + system of the child);
* per package, interleaved, median of 2,000 calls after 200 warm-up calls: the baseline is
  ``Module.forward`` on an input already prepared; the demo is ``package_demo.predict`` on the
  raw sample (pre-processing from ``algorithm.toml``, forward, labels or threshold).

Run: ``.venv/bin/python bench/market_builtins.py``
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
import MNN  # noqa: E402

from server.market.builtin import package_demo  # noqa: E402
from server.market.builtins import BUILD_ENV  # noqa: E402

CALLS = 2000
WARMUP = 200


def build(out: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "server.market.builtin.build", str(out)], cwd=REPO,
                   env={**os.environ, **BUILD_ENV, "PYTHONWARNINGS": "ignore"},
                   check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timed(call, sample) -> float:
    start = time.perf_counter()
    call(sample)
    return (time.perf_counter() - start) * 1000.0


def compare(folder: Path) -> dict[str, float]:
    manifest = package_demo.load_manifest(folder)
    net = package_demo.load_model(folder, manifest)
    raw = np.load(folder / "samples" / "inputs.npy")[0]
    ready = package_demo.preprocess(raw, manifest["inputs"][0])
    tensor = MNN.expr.const(ready, list(ready.shape), MNN.expr.NCHW)

    def bare(_sample):
        return net.forward(tensor).read()

    def demo(sample):
        return package_demo.predict(net, sample, manifest)

    times: dict[str, list[float]] = {"bare": [], "demo": []}
    for index in range(WARMUP + CALLS):
        for name, call in (("bare", bare), ("demo", demo)):
            elapsed = timed(call, raw)
            if index >= WARMUP:
                times[name].append(elapsed)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "packages"
        wall, cpu = build(out)
        print(f"build: {wall:.1f} s wall, {cpu:.1f} s CPU, load {os.getloadavg()[0]:.1f}")
        for folder in sorted(p for p in out.iterdir() if p.is_dir()):
            figures = compare(folder)
            ratio = figures["demo"] / figures["bare"]
            print(json.dumps({"package": folder.name,
                              **{k: round(v, 4) for k, v in figures.items()},
                              "ratio": round(ratio, 2)}))


if __name__ == "__main__":
    main()
