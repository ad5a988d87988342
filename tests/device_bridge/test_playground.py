"""Playground projects (docs/playground.md) run headless with ``mnnwb playground run``: the
kit's calls as JSON lines, frames from a ``.y4m`` and a photo fed to the script's callbacks, the
close callback on the end and on a stop, the app's MNN calls the wheel lacks bridged, and named
errors for what cannot run."""

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from device_bridge.playground import app
from device_bridge.playground.kit import MARK
from tests.fakes.playground import camera_project, colour_frame, model_test_project
from tests.waiting import wait_until

MNNWB = str(Path(sys.executable).parent / "mnnwb")


def kit_calls(project: Path, *extra: str) -> tuple[int, list[dict]]:
    done = subprocess.run([MNNWB, "playground", "run", str(project), "--json", *extra],
                          capture_output=True, text=True, timeout=120)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]


def _labels(calls: list[dict], index: int) -> list[tuple[int | None, str]]:
    return [(c["frame"], c["text"]) for c in calls if c["call"] == "setLabel" and c["index"] == index]


def test_a_camera_app_labels_each_frame_and_its_photo(tmp_path: Path) -> None:
    code, calls = kit_calls(camera_project(tmp_path / "colours"), "--frames", "3")
    assert code == 0, calls
    assert calls[0] == {"call": "start", "frame": None, "app": {
        "application_name": "Colours", "entry_file": "main.py", "model_name": "colours"}}
    frames = [c for c in calls if c["call"] == "frame"]
    assert [(f["frame"], f["width"], f["height"], f["image"]["shape"]) for f in frames] == [
        (i, 64, 48, [48, 64, 3]) for i in range(3)]
    assert [(f, t.split()[0]) for f, t in _labels(calls, 0)] == [(0, "red"), (1, "green"), (2, "blue"),
                                                                 (None, "bye")]
    rects = [c for c in calls if c["call"] == "drawRects"]
    assert [(r["frame"], r["texts"], r["rects"], r["lineColor"], r["lineWidth"]) for r in rects] == [
        (i, [name], [[2.0, 2.0, 60.0, 44.0]], "yellow", 3) for i, name in enumerate(("red", "green", "blue"))]
    assert [c["points"] for c in calls if c["call"] == "drawPoints"] == [[[32.0, 24.0]]] * 3
    # the photo the app chose by default, then its result drawn on it
    assert _labels(calls, 1) == [(0, "photo: red")]
    photo = next(c for c in calls if c["call"] == "photo")
    drawn = next(c for c in calls if c["call"] == "drawImage")
    assert photo["format"] == 1 and drawn["image"] == photo["image"]
    assert calls[-1] == {"call": "closed", "frame": None}


def test_the_run_chooses_the_photo_and_the_frame_count(tmp_path: Path) -> None:
    code, calls = kit_calls(camera_project(tmp_path / "colours"), "--photo", "blue.png", "--frames", "1")
    assert code == 0, calls
    assert _labels(calls, 1) == [(0, "photo: blue")]
    assert len([c for c in calls if c["call"] == "frame"]) == 1


def test_the_model_test_runs_as_on_the_app(tmp_path: Path) -> None:
    """What the example of MNN's repository does: the kit's workPath, ``F.set_config`` (which the
    app's MNN has and the PyPI wheel lacks, bridged), models from a list, each loaded and run."""
    import MNN

    assert not hasattr(MNN.expr, "set_config")  # the bridge is what makes the script run
    code, calls = kit_calls(model_test_project(tmp_path / "model-test"))
    assert code == 0, calls
    assert [c["call"] for c in calls] == ["start", "Kit", "setLabel"]
    assert calls[2]["text"] == "colours.mnn [1, 3]"


def test_what_cannot_run_is_named(tmp_path: Path) -> None:
    code, calls = kit_calls(tmp_path)
    assert code == 2 and calls[-1]["call"] == "error"
    assert calls[-1]["error"].endswith("has no app.mnnplayground: it is not a playground project")
    project = camera_project(tmp_path / "colours")
    (project / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    code, calls = kit_calls(project, "--video", "clip.mp4")
    assert code == 2
    assert calls[-1]["error"] == "clip.mp4: OpenCV cannot open it"  # without it: test_playground_opencv
    assert calls[-2] == {"call": "closed", "frame": None}  # the app still closes
    (project / "app.mnnplayground").write_text('{"entryFile": "/../../etc/passwd.py"}')
    code, calls = kit_calls(project)
    assert code == 2 and "must name a .py file inside the project" in calls[-1]["error"]
    with pytest.raises(app.AppFileError, match="is not JSON"):
        app.parse("{nope")


def test_a_script_error_is_reported_as_the_app_would(tmp_path: Path) -> None:
    project = camera_project(tmp_path / "colours")
    main = project / "main.py"
    main.write_text(main.read_text().replace('[name], lineColor', '[name, "extra"], lineColor'))
    code, calls = kit_calls(project, "--frames", "1")
    assert code == 1
    assert calls[-1]["error"] == ("Exception: drawRects input error, coordList length is 1 but texts "
                                  "length is 2")


def test_stopping_a_run_calls_its_close_callback(tmp_path: Path) -> None:
    project = camera_project(tmp_path / "colours")
    (project / "main.py").write_text(
        "import time\nimport MNNCV\nkit = MNNCV.Kit()\n"
        "kit.setCloseCallback(lambda: kit.setLabel(0, 'closed by the stop'))\n"
        "while True:\n    time.sleep(0.05)\n")
    # the run as the workbench starts it, stopped as its Stop does (SIGTERM)
    command = [sys.executable, "-m", "device_bridge.playground.run", str(project)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdout is not None
        lines: list[str] = []
        wait_until(lambda: lines.append(proc.stdout.readline()) or '"setCloseCallback"' in lines[-1],
                   what="the app to set its close callback")
        proc.send_signal(signal.SIGTERM)
        output = proc.stdout.read().splitlines()
        rest = [json.loads(line[len(MARK):]) for line in output if line.startswith(MARK)]
        assert proc.wait(timeout=60) == 143
    assert rest == [
        {"call": "setLabel", "frame": None, "index": 0, "text": "closed by the stop", "config": None},
        {"call": "closed", "frame": None},
    ]


def _jpeg_line(kind: str, index: int, name: str) -> str:
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(colour_frame(name)).save(buffer, format="JPEG", quality=90)
    payload = {"frame": index, "jpeg": base64.b64encode(buffer.getvalue()).decode()}
    return f"{kind} {json.dumps(payload)}\n"


def test_live_frames_from_the_panel_are_answered_one_by_one(tmp_path: Path) -> None:
    """``--live``: the frames and photos the Playground panel sends on stdin; a frame that is
    not an image is named and the run goes on."""
    project = camera_project(tmp_path / "colours")
    command = [sys.executable, "-m", "device_bridge.playground.run", str(project), "--live"]
    stdin = (_jpeg_line("MNNWB_FRAME", 7, "green") + 'MNNWB_FRAME {"frame": 8, "jpeg": "bm90IGFuIGltYWdl"}\n'
             + _jpeg_line("MNNWB_FRAME", 9, "blue") + _jpeg_line("MNNWB_PHOTO", 0, "red"))
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    calls = [json.loads(line[len(MARK):]) for line in done.stdout.splitlines() if line.startswith(MARK)]
    assert {"call": "live", "frame": None, "camera": True, "photo": True, "source": "browser"} in calls
    assert [(f, t.split()[0]) for f, t in _labels(calls, 0)] == [(7, "green"), (9, "blue"), (None, "bye")]
    assert _labels(calls, 1) == [(0, "photo: red")]
    assert [c["frame"] for c in calls if c["call"] == "frame.done"] == [7, 8, 9, 0]
    error = next(c for c in calls if c["call"] == "frame.error")
    assert error["frame"] == 8 and error["error"].startswith("a frame that is not a JPEG or PNG image")
