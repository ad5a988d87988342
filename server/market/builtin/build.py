"""Build the built-in algorithm packages: ``python -m server.market.builtin.build OUT``.

For each algorithm: train (``algorithms``), write the ONNX graph, convert it with the model
tools' converter, measure the converted model on the held-out split with the very code its demo
runs (``package_demo``), time it, and write the package folder with its ``algorithm.toml``.
Progress goes to stdout as ``MNNWB_PROGRESS`` lines (``server/modeltools/progress.py``).
"""

import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

from server.market.builtin import package_demo
from server.market.builtin.algorithms import ALGORITHMS, SAMPLES, Trained
from server.market.package import (
    MANIFEST_NAME,
    Demo,
    FileEntry,
    LatencyFigure,
    Metrics,
    PackageManifest,
    dump_manifest,
    file_entry,
)
from server.modeltools import convert
from server.modeltools.progress import report
from server.modeltools.schemas import ConvertArgs

VERSION = "1.0.0"
AUTHORS = ["MNN Workbench"]
TIMED_RUNS = 200
WARMUP_RUNS = 20


def _evaluate(folder: Path, manifest: PackageManifest, trained: Trained) -> tuple[float, float]:
    """Held-out accuracy of the converted model, and its median latency in milliseconds."""
    data = json.loads(manifest.model_dump_json(exclude_none=True))
    net = package_demo.load_model(folder, data)
    answers = [package_demo.predict(net, raw, data)[0] for raw in trained.test_x]
    accuracy = sum(a == e for a, e in zip(answers, trained.test_y, strict=True)) / len(answers)
    sample = trained.test_x[0]
    times = []
    for index in range(WARMUP_RUNS + TIMED_RUNS):
        start = time.perf_counter()
        package_demo.predict(net, sample, data)
        if index >= WARMUP_RUNS:
            times.append((time.perf_counter() - start) * 1000.0)
    return accuracy, statistics.median(times)


def _write_samples(folder: Path, trained: Trained) -> list[FileEntry]:
    """Held-out samples spread over the whole split, so every kind of answer shows."""
    (folder / "samples").mkdir()
    picks = np.linspace(0, len(trained.test_y) - 1, SAMPLES).round().astype(int)
    np.save(folder / "samples" / "inputs.npy", trained.test_x[picks].astype(np.float32))
    expected = [trained.test_y[i] for i in picks]
    (folder / "samples" / "expected.json").write_text(json.dumps(expected))
    return [file_entry(folder, "samples/inputs.npy", "sample"),
            file_entry(folder, "samples/expected.json", "sample")]


def _readme(trained: Trained, manifest: PackageManifest) -> str:
    metrics = manifest.metrics
    latency = metrics.latency[0]
    return (
        f"# {trained.name}\n\n{trained.summary}.\n\n{trained.about}\n\n"
        "## Figures\n\n"
        f"* accuracy {metrics.accuracy:.4f} on {metrics.eval_set} (the converted `.mnn` model)\n"
        f"* model size {metrics.size_bytes:,} bytes\n"
        f"* median latency {latency.median_ms:.4f} ms over {latency.runs} runs, "
        f"{latency.threads} thread, on {latency.device}, pre- and post-processing included\n\n"
        "## Run it\n\n`python demo.py` runs the samples in `samples/` and prints each answer;\n"
        "`python demo.py INPUTS.npy` runs your own (an array of raw samples, without the\n"
        "pre-processing, which `demo.py` applies from `algorithm.toml`). It needs numpy and MNN\n"
        "only, so it runs unchanged on a device agent.\n"
    )


def _convert(folder: Path) -> None:
    cwd = os.getcwd()
    # The converter's capture log goes to the working folder: keep it out of the packages.
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            convert.run(ConvertArgs(model=str(folder / "model.onnx"),
                                    output=str(folder / "model.mnn")))
        finally:
            os.chdir(cwd)


def build_one(trained: Trained, folder: Path) -> PackageManifest:
    folder.mkdir(parents=True)
    onnx.save(trained.model, str(folder / "model.onnx"))
    _convert(folder)
    shutil.copyfile(Path(package_demo.__file__), folder / "demo.py")
    files = [file_entry(folder, "model.mnn", "model"),
             file_entry(folder, "model.onnx", "source-model"),
             file_entry(folder, "demo.py", "demo"), *_write_samples(folder, trained)]
    manifest = PackageManifest(
        id=trained.id, version=VERSION, name=trained.name, task=trained.task,
        summary=trained.summary, license=trained.license, authors=AUTHORS,
        inputs=trained.inputs, outputs=trained.outputs, demo=Demo(entry="demo.py"), files=files)
    accuracy, median_ms = _evaluate(folder, manifest, trained)
    device = f"build host ({platform.machine()}, {os.cpu_count()} CPUs)"
    manifest.metrics = Metrics(
        accuracy=round(accuracy, 4), eval_set=trained.eval_set,
        size_bytes=(folder / "model.mnn").stat().st_size,
        latency=[LatencyFigure(device=device, threads=1, median_ms=round(median_ms, 4),
                               runs=TIMED_RUNS)])
    (folder / "README.md").write_text(_readme(trained, manifest), encoding="utf-8")
    manifest.files.append(file_entry(folder, "README.md", "readme"))
    (folder / MANIFEST_NAME).write_text(dump_manifest(manifest), encoding="utf-8")
    return manifest


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: python -m server.market.builtin.build OUT\n")
        return 2
    out = Path(argv[0])
    for index, make in enumerate(ALGORITHMS):
        report(index / len(ALGORITHMS), f"training {make.__name__.removeprefix('make_')}")
        manifest = build_one(make(), out / make.__name__.removeprefix("make_").replace("_", "-"))
        print(f"built {manifest.id}: accuracy {manifest.metrics.accuracy}", flush=True)
    report(1.0, "done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
