"""What ``batch = N`` saves on a model stage fed many crops (docs/pipelines.md#batching-crops).

    python bench/pipeline_batching.py [--rounds N] [--batch N ...]

Builds the detector → orientation → recogniser chain of ``tests/fakes/pipeline_models.py`` with
its orientation classifier exported with a dynamic batch dim, and runs it on scikit-image's photo
of coins (one crop per coin) with the orientation stage one session call per crop (``batch = 1``,
as before) and with ``batch = N``, the runs interleaved. Prints the orientation stage's median
time and the whole pipeline's for each, the speedup of the stage and the machine's load.
"""

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.pipeline_overhead import convert  # noqa: E402
from device_bridge.runtime import pipeline  # noqa: E402
from tests.fakes import pipeline_models  # noqa: E402
from tests.fakes.photos import photo  # noqa: E402

STAGE = '[[stages]]\nid = "orientation"\nmodel = "orientation.mnn"\n'


def runner(folder: Path, batch: int) -> pipeline.Runner:
    """The chain with its orientation stage on the batched model, ``batch`` crops a call."""
    text = (folder / "pipeline.toml").read_text()
    changed = f'[[stages]]\nid = "orientation"\nmodel = "orientation_batched.mnn"\nbatch = {batch}\n'
    return pipeline.Runner(pipeline.parse(text.replace(STAGE, changed), folder))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--batch", type=int, nargs="+", default=[8, 32])
    args = parser.parse_args()
    sizes = [1, *args.batch]
    stage: dict[int, list[float]] = {n: [] for n in sizes}
    whole: dict[int, list[float]] = {n: [] for n in sizes}
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        pipeline_models.build(folder, convert)
        pipeline_models.batched_orientation(folder, convert)
        image = photo("coins.png")
        runners = {n: runner(folder, n) for n in sizes}
        crops = 0
        for each in runners.values():  # all warm
            crops = len({s["id"]: s for s in each.run(image)["stages"]}["crops"]["items"])
        for _ in range(args.rounds):
            for n, each in runners.items():
                result = each.run(image)
                stage[n].append({s["id"]: s for s in result["stages"]}["orientation"]["ms"])
                whole[n].append(result["ms"])
    load = os.getloadavg()[0]
    print(f"load average {load:.2f} on {os.cpu_count()} cores, {args.rounds} rounds, {crops} crops")
    base = statistics.median(stage[1])
    for n in sizes:
        median = statistics.median(stage[n])
        print(f"batch {n:3}  orientation median {median:7.3f} ms  (x{base / median:4.2f})"
              f"  pipeline median {statistics.median(whole[n]):7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
