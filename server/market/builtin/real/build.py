"""Build one real pretrained algorithm's package folder.

The upstream model is read from its pinned archive (``cache.py``), converted with the model
tools' converter as the trained built-ins are (``server/market/builtin/build.py``), once in
fp32 and once with 8-bit weights, and both are measured through the package's own demo code on
the labelled set and the samples. The 8-bit model is kept only when it loses no accuracy and
gives every sample's answer; otherwise its figures stay in the card and the file is dropped.
"""

import importlib.util
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from device_bridge.runtime import spec as model_spec
from server.market.builtin.build import AUTHORS as WORKBENCH
from server.market.builtin.real import VERSION
from server.market.builtin.real.algorithm import RealAlgorithm, Sample
from server.market.builtin.real.cache import read_member
from server.market.builtin.real.readme import readme
from server.market.package import (
    MANIFEST_NAME,
    Demo,
    FileEntry,
    InputSpec,
    LatencyFigure,
    Metrics,
    OutputSpec,
    PackageManifest,
    dump_manifest,
    file_entry,
)
from server.modeltools import convert
from server.modeltools.schemas import ConvertArgs

DEMOS = Path(__file__).resolve().parent / "demos"
INT8 = "-int8"
LATENCY_BUDGET_S = 3.0
MAX_RUNS, MIN_RUNS = 100, 5


def _convert(source: Path, target: Path, bits: int = 0) -> None:
    cwd = os.getcwd()
    # The converter writes its capture log to the working folder: keep it out of the package.
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            convert.run(ConvertArgs(model=str(source), output=str(target),
                                    weight_quant_bits=bits))
        finally:
            os.chdir(cwd)


def _copy_demo(algorithm: RealAlgorithm, folder: Path) -> list[FileEntry]:
    shutil.copyfile(DEMOS / f"{algorithm.demo}.py", folder / "demo.py")
    shutil.copyfile(DEMOS / "common.py", folder / "demo_common.py")
    for helper in algorithm.helpers:
        shutil.copyfile(DEMOS / f"{helper}.py", folder / f"{helper}.py")
    names = ["demo.py", "demo_common.py", *(f"{h}.py" for h in algorithm.helpers)]
    return [file_entry(folder, name, "demo") for name in names]


def _write_samples(folder: Path, samples: list[Sample]) -> list[FileEntry]:
    (folder / "samples").mkdir()
    listed = []
    for sample in samples:
        if isinstance(sample.data, dict):
            path = f"samples/{sample.name}.npz"
            arrays: dict[str, Any] = sample.data
            np.savez(folder / path, **arrays)
        else:
            path = f"samples/{sample.name}.npy"
            np.save(folder / path, sample.data)
        listed.append({"name": sample.name, "file": path, "expected": sample.expected})
    (folder / "samples" / "expected.json").write_text(json.dumps(listed, indent=1))
    return [file_entry(folder, entry["file"], "sample") for entry in listed] + [
        file_entry(folder, "samples/expected.json", "sample")]


def _write_upstream(algorithm: RealAlgorithm, folder: Path) -> list[FileEntry]:
    files = []
    for name, upstream in algorithm.licenses.items():
        (folder / name).write_bytes(read_member(upstream.pin, upstream.member))
        files.append(file_entry(folder, name, "other"))
    return files


def _write_spec(algorithm: RealAlgorithm, model: Path, stem: str) -> FileEntry:
    parsed = model_spec.from_dict(algorithm.model_spec(stem))
    path = model_spec.sidecar(model)
    path.write_text(model_spec.dumps(parsed), encoding="utf-8")
    return file_entry(model.parent, path.name, "other")


def _demo_module(folder: Path) -> ModuleType:
    """The package's own demo, imported from its folder: the build measures what users run."""
    sys.path.insert(0, str(folder))
    try:
        for name in ("demo_common", "imaging", "boxes"):
            sys.modules.pop(name, None)
        loaded = importlib.util.spec_from_file_location(f"demo_{folder.name}", folder / "demo.py")
        assert loaded is not None and loaded.loader is not None
        module = importlib.util.module_from_spec(loaded)
        loaded.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(folder))


def _load(demo: ModuleType, model: Path) -> object:
    """The demo's own loader (a pipeline's loads its models), else the common one."""
    return getattr(demo, "load", demo.demo_common.load)(model)


def _accuracy(demo: ModuleType, model: Path, cases: list[Sample]) -> tuple[float, list[str]]:
    loaded = _load(demo, model)
    answers = [demo.answer(loaded, case.data)[0] for case in cases]
    right = sum(a == c.expected for a, c in zip(answers, cases, strict=True))
    return right / len(cases), answers


def _latency(demo: ModuleType, model: Path, sample: Sample) -> tuple[float, int]:
    """Median milliseconds of one answer, pre- and post-processing included."""
    loaded = _load(demo, model)
    demo.answer(loaded, sample.data)
    times: list[float] = []
    while len(times) < MIN_RUNS or (len(times) < MAX_RUNS and sum(times) < LATENCY_BUDGET_S * 1e3):
        start = time.perf_counter()
        demo.answer(loaded, sample.data)
        times.append((time.perf_counter() - start) * 1000.0)
    return statistics.median(times), len(times)


def _int8_latency(demo: ModuleType, model: Path, sample: Sample, device: str) -> LatencyFigure:
    median_ms, runs = _latency(demo, model, sample)
    return LatencyFigure(device=f"{device}, 8-bit weights", threads=1,
                         median_ms=round(median_ms, 3), runs=runs)


def _measure(algorithm: RealAlgorithm, folder: Path, samples: list[Sample]) -> Metrics:
    demo = _demo_module(folder)
    cases = algorithm.evaluation() if algorithm.evaluation else samples
    fp32, int8 = folder / f"{algorithm.stem}.mnn", folder / f"{algorithm.stem}{INT8}.mnn"
    accuracy, fp32_answers = _accuracy(demo, fp32, cases)
    int8_accuracy, int8_answers = _accuracy(demo, int8, cases)
    kept = int8_accuracy >= accuracy and int8_answers == fp32_answers
    median_ms, runs = _latency(demo, fp32, samples[0])
    int8_size = sum((folder / f"{s}{INT8}.mnn").stat().st_size for s in algorithm.models())
    device = f"build host ({platform.machine()}, {os.cpu_count()} CPUs)"
    figures: dict = {"int8_size_bytes": int8_size, "int8_kept": kept,
                     "int8_same_answers": sum(a == b for a, b in zip(int8_answers, fp32_answers,
                                                                     strict=True)) / len(cases)}
    if algorithm.evaluation:
        figures["int8_accuracy"] = round(int8_accuracy, 4)
    return Metrics(
        accuracy=round(accuracy, 4) if algorithm.evaluation else None,
        eval_set=algorithm.eval_set,
        size_bytes=sum((folder / f"{stem}.mnn").stat().st_size for stem in algorithm.models()),
        latency=[LatencyFigure(device=device, threads=1, median_ms=round(median_ms, 3), runs=runs),
                 *([_int8_latency(demo, int8, samples[0], device)] if kept else [])],
        **figures)


def _manifest(algorithm: RealAlgorithm, files: list[FileEntry]) -> PackageManifest:
    return PackageManifest(
        id=algorithm.id, version=VERSION, name=algorithm.name, task=algorithm.task,
        summary=algorithm.summary, license=algorithm.license,
        authors=[*algorithm.authors, *WORKBENCH],
        inputs=[InputSpec.model_validate(i) for i in algorithm.spec["inputs"]],
        outputs=[OutputSpec.model_validate(o) for o in algorithm.spec["outputs"]],
        demo=Demo(entry="demo.py"), files=files)


def _convert_models(algorithm: RealAlgorithm, folder: Path) -> list[FileEntry]:
    """Each upstream model beside its fp32 and 8-bit conversions: the fp32 ones listed first."""
    models, specs, sources = [], [], []
    for stem, upstream in algorithm.models().items():
        source = folder / algorithm.source_name(stem)
        source.write_bytes(read_member(upstream.pin, upstream.member))
        _convert(source, folder / f"{stem}.mnn")
        _convert(source, folder / f"{stem}{INT8}.mnn", bits=8)
        models.append(file_entry(folder, f"{stem}.mnn", "model"))
        specs.append(_write_spec(algorithm, folder / f"{stem}.mnn", stem))
        sources.append(file_entry(folder, source.name, "source-model"))
    return [*models, *specs, *sources]


def _keep_or_drop_int8(algorithm: RealAlgorithm, folder: Path, manifest: PackageManifest) -> None:
    kept = bool(manifest.metrics.model_extra and manifest.metrics.model_extra["int8_kept"])
    for stem in algorithm.models():
        model = folder / f"{stem}{INT8}.mnn"
        if kept:
            manifest.files += [file_entry(folder, model.name, "model"),
                               _write_spec(algorithm, model, stem)]
        else:
            model.unlink()


def _write_extra(algorithm: RealAlgorithm, folder: Path) -> list[FileEntry]:
    if algorithm.write_extra is None:
        return []
    return [file_entry(folder, name, role) for name, role in algorithm.write_extra(folder).items()]


def build_one(algorithm: RealAlgorithm, folder: Path) -> PackageManifest:
    folder.mkdir(parents=True)
    samples = algorithm.samples()
    files = [*_convert_models(algorithm, folder), *_copy_demo(algorithm, folder),
             *_write_samples(folder, samples), *_write_upstream(algorithm, folder),
             *_write_extra(algorithm, folder)]
    manifest = _manifest(algorithm, files)
    (folder / MANIFEST_NAME).write_text(dump_manifest(manifest), encoding="utf-8")
    manifest.metrics = _measure(algorithm, folder, samples)
    _keep_or_drop_int8(algorithm, folder, manifest)
    (folder / "README.md").write_text(readme(algorithm, manifest), encoding="utf-8")
    manifest.files.append(file_entry(folder, "README.md", "readme"))
    (folder / MANIFEST_NAME).write_text(dump_manifest(manifest), encoding="utf-8")
    return manifest
