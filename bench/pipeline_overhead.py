"""What the pipeline runtime adds over the same models called in a bare Python loop.

    python bench/pipeline_overhead.py [--rounds N]

Builds the detector → orientation → recogniser chain of ``tests/fakes/pipeline_models.py`` (real
exports, converted with MNN) and runs it on scikit-image's photo of coins, interleaved with a
bare loop doing the same work by hand: decode, the detector, the map's regions, a crop per
region, the classifier and the recogniser on each crop and its text read (the same sessions
and preprocessing, none of the runtime's stages, items, summaries or timeline). Prints both
medians, the median of the pairs' ratios (goal <= 1.05) and the machine's load.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from device_bridge.runtime import decode, pipeline, preprocess, spec, steps  # noqa: E402
from device_bridge.runtime.engine import Session  # noqa: E402
from server.modeltools.runner import Limits, WorkerSpec, run_worker  # noqa: E402
from tests.fakes import pipeline_models  # noqa: E402
from tests.fakes.photos import photo  # noqa: E402


def convert(source: Path, target: Path) -> None:
    """A source model to MNN through the workbench's own converter run (shared by the pipeline benches)."""
    outcome = run_worker(
        WorkerSpec(
            "convert",
            {"model": str(source), "output": str(target)},
            target.parent / f"run-{target.stem}",
            Limits(timeout_s=300),
        )
    )
    assert outcome.status == "succeeded", outcome.error


def bare(folder: Path, image: Path) -> float:
    """The chain by hand; seconds."""
    models = {
        name: (Session(folder / f"{name}.mnn"), spec.load(folder / f"{name}.mnn"))
        for name in ("detector", "orientation", "recogniser")
    }
    start = time.perf_counter()
    pixels = preprocess.decode_image(image)
    session, own = models["detector"]
    tensor, frame = preprocess.image_tensor(own.inputs[0], own.inputs[0].run_shape(), pixels)
    score = session.run({"image": tensor})["score"]
    picture = steps.Picture(pixels)
    for x1, y1, x2, y2, _ in steps.map_to_boxes(score, 0.5, 40):
        a, b = frame.to_file(x1, y1)
        c, d = frame.to_file(x2, y2)
        crop = steps.crop(picture, [a, b, c, d], 2, 0)
        session, own = models["orientation"]
        logits = session.run(
            {"image": preprocess.image_tensor(own.inputs[0], own.inputs[0].run_shape(), crop.pixels)[0]}
        )["logits"]
        if int(np.argmax(logits)) == 1:
            crop = steps.rotate(crop, 180)
        session, own = models["recogniser"]
        read = session.run(
            {"crop": preprocess.image_tensor(own.inputs[0], own.inputs[0].run_shape(), crop.pixels)[0]}
        )
        decode.text(own.outputs[0], read["logits"], list("abcd"))  # what was read, as a person wants it
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        pipeline_models.build(folder, convert)
        image = photo("coins.png")
        runner = pipeline.Runner(pipeline.load(folder / "pipeline.toml"))
        runner.run(image)
        bare(folder, image)  # both warm
        ours, theirs = [], []
        for _ in range(args.rounds):
            theirs.append(bare(folder, image))
            begin = time.perf_counter()
            runner.run(image)
            ours.append(time.perf_counter() - begin)
    ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores, {args.rounds} pairs")
    print(f"pipeline runtime  median {statistics.median(ours) * 1000:7.2f} ms")
    print(f"bare loop         median {statistics.median(theirs) * 1000:7.2f} ms")
    print(f"ratio (median of pairs) {statistics.median(ratios):.3f}  (goal <= 1.05)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
