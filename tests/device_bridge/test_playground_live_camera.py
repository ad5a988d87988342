"""A live run fed by the device's own camera (``run.py --live --camera``, ``live_camera.py``):
what OpenCV opens as a camera here is a real ``mp4v`` clip (no V4L2 device is used); each frame's
result comes back with the frame as a JPEG, one picture in flight until the panel answers
``MNNWB_SHOWN``; and the sources the agent is told to offer as cameras (``MNNWB_AGENT_CAMERAS``)."""

import base64
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from device_bridge.playground.cameras import cameras, configured
from device_bridge.playground.kit import MARK
from tests.fakes.playground import camera_project, write_mp4

REPO = Path(__file__).resolve().parents[2]
CLIP = ("red",) * 10 + ("green",) * 10 + ("blue",) * 10


def _colour(jpeg: str) -> str:
    picture = cv2.imdecode(np.frombuffer(base64.b64decode(jpeg), np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == (24, 32, 3)  # the frame the app had, at --width
    blue, green, red = (float(picture[..., i].mean()) for i in range(3))
    return ["red", "green", "blue"][int(np.argmax([red, green, blue]))]


def _follow(run: subprocess.Popen, source: str) -> tuple[list[tuple[int, str, str]], list[dict], int | None]:
    """Read the run as the panel does: each picture answered once drawn (the first only after
    two frames more). Gives each picture's frame, colour and the label of its frame, the
    ``frame.done`` events, and the frame after which the first picture was answered."""
    assert run.stdin is not None and run.stdout is not None
    label, waiting, answered_after = "", None, None
    pictures: list[tuple[int, str, str]] = []  # frame, its picture's colour, its label
    dones = []
    for line in run.stdout:
        if not line.startswith(MARK):
            continue
        call = json.loads(line[len(MARK):])
        if call["call"] == "live":
            assert call["source"] == source and call["camera"] is True
        if call["call"] == "setLabel" and call["frame"] is not None:
            label = call["text"].split()[0]
        if call["call"] != "frame.done":
            continue
        dones.append(call)
        assert (call["width"], call["height"]) == (32, 24) and call["latency_ms"] >= 0
        if "jpeg" in call:
            assert waiting is None, "a picture was sent while one was in flight"
            pictures.append((call["frame"], _colour(call["jpeg"]), label))
            waiting = call["frame"]
        # the first picture is answered only after two frames more, the others at once
        if waiting is not None and (len(pictures) > 1 or call["frame"] >= waiting + 2):
            run.stdin.write(f'MNNWB_SHOWN {{"frame": {waiting}}}\n')
            run.stdin.flush()
            answered_after = answered_after or call["frame"]
            waiting = None
    run.wait(60)
    return pictures, dones, answered_after


def test_each_frame_comes_back_with_its_results_one_picture_in_flight(tmp_path: Path) -> None:
    project = camera_project(tmp_path / "colours")
    clip = write_mp4(tmp_path / "camera.mp4", CLIP, fps=10)
    command = [sys.executable, "-m", "device_bridge.playground.run", str(project), "--live",
               "--camera", str(clip), "--width", "32"]
    with subprocess.Popen(command, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as run:
        pictures, dones, answered_after = _follow(run, f"camera {clip}")
    assert run.returncode == 0
    assert pictures[0][0] == 0 and answered_after is not None and answered_after >= 2
    assert all("jpeg" not in d for d in dones[1:answered_after + 1])  # none while one was in flight
    assert len(pictures) >= 3
    assert all(colour == label for _, colour, label in pictures), pictures  # results on their frame
    assert {colour for _, colour, _ in pictures} == {"red", "green", "blue"}
    assert len(dones) + dones[-1]["dropped"] == len(CLIP)  # each frame done or dropped, none twice


def test_the_agent_offers_the_sources_it_is_told_of_as_cameras(tmp_path: Path) -> None:
    dev = tmp_path / "dev"
    dev.mkdir()
    clip = write_mp4(tmp_path / "clip.mp4")
    (dev / "video0").write_bytes(clip.read_bytes())
    assert configured(f" {clip} ;rtsp://camera.local/stream;; ") == [str(clip), "rtsp://camera.local/stream"]
    missing = str(tmp_path / "gone.mp4")
    assert cameras(dev, [str(clip), missing]) == [str(dev / "video0"), str(clip)]  # those OpenCV opens
