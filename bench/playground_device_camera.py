"""The Playground fed by a device's own camera (``run --live --camera``), against the bare loop.

    python bench/playground_device_camera.py [--width 224] [--frames 300]

What OpenCV opens as the camera is a generated ``mp4v`` clip (red, green, blue, at 30 fps). The
colours app of the tests classifies each frame with a small MNN model and draws a rect and a
point.

* ours: ``python -m device_bridge.playground.run PROJECT --live --camera CLIP --width W``, as the
  agent starts it for the panel, each picture answered at once (``MNNWB_SHOWN``) as a panel
  that draws instantly would: the run's capture→result ``latency_ms`` of each frame, the
  frames done per second, the pictures sent and the frames dropped.
* bare: the same clip read with ``cv2.VideoCapture`` and the same classification with MNN in a
  plain loop — no kit, no events, no JPEG: the time from each frame's read to its result.

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

from device_bridge.playground.kit import MARK  # noqa: E402
from tests.fakes.playground import camera_project, write_mp4  # noqa: E402

BARE = '''import sys, time
import cv2, numpy as np, MNN
F = MNN.expr
net = MNN.nn.load_module_from_file(sys.argv[1], ["image"], ["scores"])
capture = cv2.VideoCapture(sys.argv[2])
width = int(sys.argv[3])
took = []
while True:
    start = time.monotonic()
    ok, frame = capture.read()
    if not ok:
        break
    rgb = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
    height = round(rgb.shape[0] * width / rgb.shape[1])
    rgb = cv2.resize(rgb, (width, height), interpolation=cv2.INTER_AREA)
    small = (rgb.astype(np.float32) / 255.0)[:: max(1, height // 16), :: max(1, width // 16)][:16, :16]
    image = F.placeholder([1, 3, 16, 16], F.NCHW)
    image.write(np.ascontiguousarray(small.transpose(2, 0, 1)).ravel().tolist())
    net.forward(image).read()
    took.append((time.monotonic() - start) * 1000)
print(" ".join("%.3f" % t for t in took))
'''


def ours(project: Path, clip: Path, width: int) -> dict:
    command = [sys.executable, "-m", "device_bridge.playground.run", str(project), "--live",
               "--camera", str(clip), "--width", str(width)]
    latencies, pictures, times, dropped = [], 0, [], 0
    with subprocess.Popen(command, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True) as run:
        assert run.stdin is not None and run.stdout is not None
        for line in run.stdout:
            if not line.startswith(MARK):
                continue
            call = json.loads(line[len(MARK):])
            if call["call"] != "frame.done":
                continue
            latencies.append(call["latency_ms"])
            times.append(time.monotonic())
            dropped = call["dropped"]
            if "jpeg" in call:
                pictures += 1
                run.stdin.write(f'MNNWB_SHOWN {{"frame": {call["frame"]}}}\n')
                run.stdin.flush()
    fps = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else 0.0
    return {"frames": len(latencies), "median_ms": statistics.median(latencies), "fps": fps,
            "pictures": pictures, "dropped": dropped}


def bare(project: Path, clip: Path, width: int) -> dict:
    done = subprocess.run([sys.executable, "-c", BARE, str(project / "models" / "colours.mnn"),
                           str(clip), str(width)], capture_output=True, text=True, check=True)
    took = [float(t) for t in done.stdout.strip().splitlines()[-1].split()]  # MNN prints before
    return {"frames": len(took), "median_ms": statistics.median(took)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=224)
    parser.add_argument("--frames", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = camera_project(Path(tmp) / "colours")
        names = tuple(("red", "green", "blue")[(i // 10) % 3] for i in range(args.frames))
        clip = write_mp4(Path(tmp) / "camera.mp4", names, fps=30)
        load = os.getloadavg()[0]
        mine, plain = ours(project, clip, args.width), bare(project, clip, args.width)
    print(f"load {load:.2f}; {args.frames} frames of {args.width} px at 30 fps")
    print(f"ours: capture→result median {mine['median_ms']:.2f} ms over {mine['frames']} frames done, "
          f"{mine['fps']:.1f} fps, {mine['pictures']} pictures sent, {mine['dropped']} dropped")
    print(f"bare: read→result median {plain['median_ms']:.2f} ms over {plain['frames']} frames")


if __name__ == "__main__":
    main()
