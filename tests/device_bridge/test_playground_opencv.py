"""Playground video through OpenCV (docs/playground.md): an ``.mp4`` written here with
``cv2.VideoWriter`` reaches ``setCamera`` as RGB frames, as a ``.y4m`` does; without OpenCV it
is refused by name. A device's own camera (``--camera``) is read by ``capture.Camera``, which
takes what ``cv2.VideoCapture`` opens: no V4L2 device exists here, so a video file goes through
the same code, and the camera listing reads a made-up ``/dev``."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

from device_bridge.playground import capture
from device_bridge.playground.cameras import cameras
from device_bridge.playground.kit import MARK
from tests.device_bridge.test_playground import _labels, kit_calls
from tests.fakes.playground import camera_project, write_mp4
from tests.waiting import wait_until

WITHOUT_OPENCV = ("import sys; sys.modules['cv2'] = None; "  # a machine where cv2 does not import
                  "from device_bridge.playground.run import main; sys.exit(main(sys.argv[1:]))")


def _colours(calls: list[dict]) -> list[str]:
    return [text.split()[0] for frame, text in _labels(calls, 0) if frame is not None]


def test_an_mp4_reaches_the_camera_callback_as_rgb_frames(tmp_path: Path) -> None:
    project = camera_project(tmp_path / "colours")
    write_mp4(project / "clip.mp4")
    code, calls = kit_calls(project, "--video", "clip.mp4")
    assert code == 0, calls
    frames = [c for c in calls if c["call"] == "frame"]
    assert [(f["frame"], f["source"], f["width"], f["height"], f["format"], f["image"]["shape"])
            for f in frames] == [(i, "clip.mp4", 64, 48, 1, [48, 64, 3]) for i in range(3)]
    assert _colours(calls) == ["red", "green", "blue"]  # BGR would read red as blue
    assert calls[-1] == {"call": "closed", "frame": None}


def test_without_opencv_an_mp4_is_refused_by_name(tmp_path: Path) -> None:
    project = camera_project(tmp_path / "colours")
    write_mp4(project / "clip.mp4")
    command = [sys.executable, "-c", WITHOUT_OPENCV, str(project), "--video", "clip.mp4"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    calls = [json.loads(line[len(MARK):]) for line in done.stdout.splitlines() if line.startswith(MARK)]
    assert done.returncode == 2, done.stderr
    assert calls[-1]["error"].startswith("clip.mp4: only .y4m video is read here without OpenCV "
                                         "(the opencv-python-headless package; cv2 does not import)")
    assert calls[-2] == {"call": "closed", "frame": None}
    # the .y4m reader needs no OpenCV
    done = subprocess.run([*command[:-1], "clip.y4m"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    command[-2:] = ["--camera", "0"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "camera 0: a device's camera is read with OpenCV (the opencv-python-headless" in done.stdout


def test_a_camera_that_cannot_be_opened_is_named(tmp_path: Path) -> None:
    project = camera_project(tmp_path / "colours")
    code, calls = kit_calls(project, "--camera", str(tmp_path / "video7"))
    assert code == 2 and calls[-1]["error"] == f"camera {tmp_path / 'video7'}: OpenCV cannot open it"
    assert calls[-2] == {"call": "closed", "frame": None}


def test_the_camera_gives_frames_at_the_chosen_width(tmp_path: Path) -> None:
    """``--camera`` with what ``cv2.VideoCapture`` opens — here a file, played at its frame rate
    as a camera makes frames; the app gets the newest each time, so frames may be dropped."""
    project = camera_project(tmp_path / "colours")
    clip = write_mp4(tmp_path / "camera.mp4", fps=5)
    code, calls = kit_calls(project, "--camera", str(clip), "--width", "32", "--frames", "3")
    assert code == 0, calls
    frames = [c for c in calls if c["call"] == "frame"]
    assert frames and {(f["source"], f["width"], f["height"]) for f in frames} == {
        (f"camera {clip}", 32, 24)}
    assert len(frames) + frames[-1]["dropped"] == 3  # each frame given or dropped, none twice
    colours = _colours(calls)
    assert colours[-1] == "blue" and colours == [c for c in ("red", "green", "blue") if c in colours]


def test_frames_made_while_the_app_works_are_dropped_not_queued(tmp_path: Path) -> None:
    camera = capture.Camera(str(write_mp4(tmp_path / "camera.mp4", fps=1000)))
    try:
        wait_until(lambda: camera.dropped == 2, what="the camera to make its three frames")
        newest = camera.next()
        assert newest is not None and newest.shape == (48, 64, 3)
        assert newest[..., 2].mean() > 200 > newest[..., 0].mean()  # blue, the last one, in RGB
        assert camera.next() is None  # the first two were dropped: the camera has ended
    finally:
        camera.close()


def test_the_cameras_are_the_video_devices_opencv_opens(tmp_path: Path) -> None:
    dev = tmp_path / "dev"
    dev.mkdir()
    clip = write_mp4(tmp_path / "clip.mp4")
    for name in ("video10", "video0", "videos"):
        shutil.copy(clip, dev / name)
    (dev / "video1").write_bytes(b"not a camera")
    assert cameras(dev) == [str(dev / "video0"), str(dev / "video10")]
    without = ("import sys; sys.modules['cv2'] = None; from device_bridge.playground.cameras import "
               f"cameras; print(cameras({str(dev)!r}))")
    done = subprocess.run([sys.executable, "-c", without], capture_output=True, text=True, timeout=60)
    assert done.stdout == "None\n", done.stderr
