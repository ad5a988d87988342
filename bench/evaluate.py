"""Evaluate's throughput against a bare MNN loop over the same images.

    python bench/evaluate.py [--rounds 5] [--per-class 100] [--size 224]

The classifier of ``tests/fakes/photo_classifier.py`` (trained on crops of four photos that
scikit-image ships, exported to ONNX with open height and width, converted to MNN fp32) is
evaluated on an ImageFolder of ``--per-class`` crops per class of the same photos, at their own
sizes (about 100 to 500 pixels a side, JPEG and PNG), resized to ``--size`` by the spec.

* ours: one evaluate run of the MNN model the way the API starts it — through the worker pool,
  its spare worker ready as on a server between requests — timed from submit to outcome, so the
  figure holds reading the dataset, the spec and the model, every sample and the result;
* bare: a loop written by hand in a fresh process over the same files: MNN session made, then
  per file Pillow decode, resize, scale/mean/std, NCHW, ``runSession``, arg-max; timed from
  loading the model to the last answer (its interpreter start and imports not counted, as a
  spare worker has done those before its run).

Rounds alternate which goes first; the figure is the median over rounds of ours / bare in
samples per second (goal >= 0.90). The load average is printed with it.
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

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from server.modeltools.pool import WorkerPool  # noqa: E402
from server.modeltools.runner import Limits, WorkerSpec  # noqa: E402
from tests.fakes import photo_classifier  # noqa: E402
from tests.fakes.photos import photo  # noqa: E402

LIMITS = Limits(timeout_s=900)
SPARE_READY_SECONDS = 60.0
BARE = """
import json, sys, time
import MNN, numpy as np
from PIL import Image
model, size, files = sys.argv[1], int(sys.argv[2]), json.load(open(sys.argv[3]))
mean = np.array([0.5, 0.5, 0.5], np.float32)
std = np.array([0.25, 0.25, 0.25], np.float32)
start = time.perf_counter()
net = MNN.Interpreter(model)
session = net.createSession({"numThread": 1})
tensor = net.getSessionInput(session)
net.resizeTensor(tensor, (1, 3, size, size))
net.resizeSession(session)
output = net.getSessionOutput(session)
answers = []
for path in files:
    with Image.open(path) as image:
        pixels = np.asarray(image.convert("RGB").resize((size, size), Image.Resampling.BILINEAR))
    value = ((pixels.astype(np.float32) * np.float32(1 / 255) - mean) / std).transpose(2, 0, 1)[None]
    tensor.copyFrom(MNN.Tensor((1, 3, size, size), MNN.Halide_Type_Float, np.ascontiguousarray(value),
                               MNN.Tensor_DimensionType_Caffe))
    net.runSession(session)
    shape = tuple(output.getShape())
    host = MNN.Tensor(shape, MNN.Halide_Type_Float, np.zeros(shape, np.float32),
                      MNN.Tensor_DimensionType_Caffe)
    output.copyToHostTensor(host)
    answers.append(int(np.argmax(host.getNumpyData())))
print(json.dumps({"seconds": time.perf_counter() - start, "answers": answers}))
"""


def images(folder: Path, per_class: int, seed: int = 1) -> list[Path]:
    """``folder/val/<class>/``: crops of each class's photo at their own size."""
    rng = np.random.default_rng(seed)
    written = []
    for name, file in photo_classifier.CLASSES.items():
        with Image.open(photo(file)) as image:
            source = image.convert("RGB")
        target = folder / "val" / name
        target.mkdir(parents=True)
        width, height = source.size
        for index in range(per_class):
            side = int(min(width, height) * rng.uniform(0.33, 1.0))
            left, top = int(rng.integers(0, width - side + 1)), int(rng.integers(0, height - side + 1))
            crop = source.crop((left, top, left + side, top + side))
            path = target / f"{name}_{index:04d}.{'png' if index % 2 else 'jpg'}"
            crop.save(path, **({} if index % 2 else {"quality": 90}))
            written.append(path)
    return written


def build(folder: Path) -> Path:
    dataset = photo_classifier.make_dataset(folder / "train-photos")
    onnx = photo_classifier.train(dataset, folder / "classifier.onnx")
    mnn = folder / "classifier.mnn"
    outcome = photo_classifier.run_worker_tool("convert", {"model": str(onnx), "output": str(mnn)},
                                               folder / "convert")
    assert outcome.status == "succeeded", outcome.error
    photo_classifier.write_spec(mnn, [1, 3, -1, -1])
    return mnn


def ours(pool: WorkerPool, model: Path, dataset: Path, size: int, run_dir: Path) -> tuple[float, dict]:
    pool.spare_ready(SPARE_READY_SECONDS)
    args = {"models": [str(model)], "dataset": str(dataset), "input_shapes": {"image": [1, 3, size, size]},
            "root": str(dataset.parent)}
    start = time.perf_counter()
    outcome = pool.submit(WorkerSpec("evaluate", args, run_dir, LIMITS)).future.result()
    elapsed = time.perf_counter() - start
    if outcome.status != "succeeded":
        raise SystemExit(f"evaluate failed: {outcome.error}")
    return elapsed, outcome.result or {}


def bare(model: Path, size: int, files: Path) -> tuple[float, list[int]]:
    out = subprocess.run([sys.executable, "-c", BARE, str(model), str(size), str(files)],
                         check=True, capture_output=True, text=True)
    found = json.loads(out.stdout.strip().splitlines()[-1])
    return found["seconds"], found["answers"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--per-class", type=int, default=100)
    parser.add_argument("--size", type=int, default=224)
    args = parser.parse_args()
    pool = WorkerPool(size=1, limits=LIMITS)
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        model = build(folder)
        dataset = folder / "bench-photos"
        images(dataset, args.per_class)
        _, first = ours(pool, model, dataset, args.size, folder / "warm")  # the spare exists after one run
        samples = first["samples"]
        order = folder / "files.json"  # evaluate's order: class by class in turn
        by_class = [sorted((dataset / "val" / c).iterdir()) for c in sorted(photo_classifier.CLASSES)]
        files = [str(p) for group in zip(*by_class, strict=True) for p in group]
        order.write_text(json.dumps(files))
        bare(model, args.size, order)
        ours_sps, bare_sps, ratios, inside = [], [], [], []
        for index in range(args.rounds):
            if index % 2:
                seconds, answers = bare(model, args.size, order)
            elapsed, result = ours(pool, model, dataset, args.size, folder / f"run{index}")
            if not index % 2:
                seconds, answers = bare(model, args.size, order)
            right = sum(a == i % 4 for i, a in enumerate(answers))
            assert right == result["models"][0]["correct"], (right, result["models"][0]["correct"])
            ours_sps.append(result["samples"] / elapsed)
            bare_sps.append(len(answers) / seconds)
            inside.append(result["samples_per_s"])
            ratios.append(ours_sps[-1] / bare_sps[-1])
    pool.shutdown()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {samples} images at "
          f"{args.size}x{args.size}, {args.rounds} rounds")
    print(f"evaluate (submit to outcome)  median {statistics.median(ours_sps):7.1f} samples/s")
    print(f"evaluate (its sample loop)    median {statistics.median(inside):7.1f} samples/s")
    print(f"bare MNN loop                 median {statistics.median(bare_sps):7.1f} samples/s")
    print(f"ratio (median of rounds) {statistics.median(ratios):.3f}  (goal >= 0.90); "
          f"rounds: {' '.join(f'{r:.3f}' for r in ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
