"""A pipeline on a device's own camera (``pipeline_live --camera``), against the bare loop.

    python bench/pipeline_camera.py [--frames 100]

Builds the detector → orientation → recogniser chain of ``tests/fakes/pipeline_models.py`` (real
exports, converted with MNN). What OpenCV opens as the camera is a generated ``mp4v`` clip of
scikit-image's photo of coins sliding by (384 × 302, 10 fps).

* ours: ``python -m device_bridge.runtime.pipeline_live PIPELINE --camera CLIP``, as the agent
  starts it for the panel, each picture answered at once (``MNNWB_SHOWN``) as a panel that draws
  instantly would: each frame's capture→result ``latency_ms`` and its end-to-end ``ms`` in the
  runtime, the frames done and dropped.
* bare: the same clip read with ``cv2.VideoCapture`` in a plain loop at the same 10 fps, each frame
  turned to RGB and given to the same ``pipeline.Runner`` — no camera thread, no JSON line, no
  JPEG: the time from each frame's read to its result.

Prints the medians and the load average.
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.pipeline_overhead import convert  # noqa: E402
from device_bridge.runtime.pipeline_live import MARK  # noqa: E402
from tests.device_bridge.test_pipeline_camera import coins_clip  # noqa: E402
from tests.fakes import pipeline_models  # noqa: E402

BARE = '''import sys, time
import cv2
from pathlib import Path
from device_bridge.runtime import pipeline
runner = pipeline.Runner(pipeline.load(Path(sys.argv[1])))
capture = cv2.VideoCapture(sys.argv[2])
took = []
while True:
    start = time.monotonic()
    ok, frame = capture.read()
    if not ok:
        break
    runner.run(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
    took.append((time.monotonic() - start) * 1000)
    time.sleep(max(0.0, 0.1 - (time.monotonic() - start)))  # at the clip's 10 fps, as a camera gives it
print(" ".join("%.3f" % t for t in took))
'''


def ours(file: Path, clip: Path) -> dict:
    command = [sys.executable, "-m", "device_bridge.runtime.pipeline_live", str(file), "--camera", str(clip)]
    latencies, runtime, times, dropped = [], [], [], 0
    with subprocess.Popen(command, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as run:
        assert run.stdin is not None and run.stdout is not None
        for line in run.stdout:
            if not line.startswith(MARK):
                continue
            event = json.loads(line[len(MARK):])
            if event["event"] != "frame":
                continue
            latencies.append(event["latency_ms"])
            runtime.append(event["result"]["ms"])
            times.append(time.monotonic())
            dropped = event["dropped"]
            if "jpeg" in event:
                run.stdin.write(f'MNNWB_SHOWN {{"frame": {event["frame"]}}}\n')
                run.stdin.flush()
    return {"frames": len(latencies), "median_ms": statistics.median(latencies),
            "runtime_ms": statistics.median(runtime), "dropped": dropped}


def bare(file: Path, clip: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", BARE, str(file), str(clip)], cwd=REPO,
                          capture_output=True, text=True, check=True)
    took = [float(t) for t in done.stdout.strip().splitlines()[-1].split()]  # MNN prints before
    return {"frames": len(took), "median_ms": statistics.median(took)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3, help="ours then bare, this many times")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        file = pipeline_models.build(Path(tmp) / "chain", convert)
        clip = coins_clip(Path(tmp) / "camera.mp4", args.frames)
        pairs = []
        for round_ in range(args.rounds):
            load = os.getloadavg()[0]
            mine, plain = ours(file, clip), bare(file, clip)
            pairs.append((mine["median_ms"], plain["median_ms"]))
            print(f"round {round_ + 1}, load {load:.2f}: "
                  f"ours capture→result median {mine['median_ms']:.2f} ms "
                  f"(the runtime's end to end {mine['runtime_ms']:.2f} ms), {mine['frames']} frames done, "
                  f"{mine['dropped']} dropped; bare read→result median {plain['median_ms']:.2f} ms "
                  f"({plain['frames']} frames)")
    mine_ms, bare_ms = statistics.median(m for m, _ in pairs), statistics.median(b for _, b in pairs)
    print(f"{args.frames} frames of 384 × 302 at 10 fps; over the rounds: ours {mine_ms:.2f} ms, "
          f"bare {bare_ms:.2f} ms, median ratio {statistics.median(m / b for m, b in pairs):.2f}")


if __name__ == "__main__":
    main()
