"""A pipeline run on a camera, per frame (``device_bridge/runtime/pipeline_live.py``): frames of a
real ``mp4v`` clip that OpenCV opens as a camera (no V4L2 device is used), here and on a real
agent process, give every stage's items equal to a run of ``pipeline.Runner`` on the same
pixels; the browser's JPEG frames on stdin too; and what cannot run on a camera is refused by
name."""

import base64
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from device_bridge.playground import capture
from device_bridge.runtime import pipeline, pipeline_live
from tests.device_bridge.harness import AgentProcess, HubServer
from tests.device_bridge.test_agent_runs import attach, exit_of
from tests.device_bridge.test_pipeline import COINS, _convert
from tests.fakes import audio_models
from tests.fakes.photos import photo
from tests.waiting import wait_until

REPO = Path(__file__).resolve().parents[2]
FRAMES = 12
LIVE = ["-m", "device_bridge.runtime.pipeline_live"]


def coins_frames(count: int = FRAMES) -> list[np.ndarray]:
    """The coins photo (RGB, 384 × 302) sliding 8 pixels a frame."""
    grey = np.asarray(Image.open(photo(COINS)).convert("L"))[:302, :384]
    return [np.repeat(np.roll(grey, 8 * index, axis=1)[:, :, None], 3, axis=2) for index in range(count)]


def coins_clip(path: Path, count: int = FRAMES) -> Path:
    """``coins_frames`` as an ``mp4v`` clip at 10 fps."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10, (384, 302))
    assert writer.isOpened(), "OpenCV cannot write mp4v here"
    for frame in coins_frames(count):
        writer.write(np.ascontiguousarray(frame[:, :, ::-1]))
    writer.release()
    return path


def project_of(coins_pipeline: Path, folder: Path) -> Path:
    folder.mkdir()
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, folder / path.name)
    shutil.copy(coins_pipeline, folder / "pipeline.toml")
    return folder


def events(text: str) -> list[dict]:
    mark = pipeline_live.MARK
    return [json.loads(line[len(mark):]) for line in text.splitlines() if line.startswith(mark)]


def items(result: dict) -> list:
    return [(s["id"], s["items"]) for s in result["stages"]]


def assert_as_here(project: Path, frames: list[dict], pixels: dict[str, np.ndarray]) -> None:
    """Each frame's stages give what a run here gives on the same pixels."""
    runner = pipeline.Runner(pipeline.load(project / "pipeline.toml"))
    for done in frames:
        here = runner.run(pixels[done["hash"]])
        assert items(done["result"]) == items(here), done["frame"]
    assert any(len(d["result"]["stages"][2]["items"][0]["boxes"]) >= 10 for d in frames)  # coins found


def clip_pixels(clip: Path) -> dict[str, np.ndarray]:
    return {pipeline_live.frame_hash(f): f for f in capture.file_frames(clip, FRAMES)}


def assert_figures(frames: list[dict]) -> None:
    for count, done in enumerate(frames, start=1):
        figures = done["summary"]
        assert figures["frames"] == count
        stages = [s["id"] for s in done["result"]["stages"]]
        assert list(figures["stages"]) == stages
        whole = [d["result"]["ms"] for d in frames[:count]]
        assert figures["end_to_end"]["median_ms"] == pytest.approx(float(np.median(whole)))
        assert figures["end_to_end"]["p90_ms"] == pytest.approx(float(np.percentile(whole, 90)))


def test_a_camera_here_gives_each_frame_the_runs_results(coins_pipeline: Path, tmp_path: Path) -> None:
    project = project_of(coins_pipeline, tmp_path / "chain")
    clip = coins_clip(tmp_path / "camera.mp4")
    done = subprocess.run([sys.executable, *LIVE, str(project / "pipeline.toml"), "--camera", str(clip)],
                          cwd=REPO, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = events(done.stdout)
    assert found[0] == {"event": "live", "pipeline": "coins", "source": f"camera {clip}",
                        "stages": ["image", "detect", "boxes", "crops", "orientation", "upright", "read"]}
    frames = [e for e in found if e["event"] == "frame"]
    assert frames and len(frames) + frames[-1]["dropped"] == FRAMES  # each frame done or dropped
    assert "jpeg" in frames[0] and all("jpeg" not in f for f in frames[1:])  # one picture in flight
    assert_as_here(project, frames, clip_pixels(clip))
    assert_figures(frames)


def test_the_browsers_frames_on_stdin_give_the_runs_results(coins_pipeline: Path, tmp_path: Path) -> None:
    project = project_of(coins_pipeline, tmp_path / "chain")
    pixels, lines = {}, []
    for index, frame in enumerate(list(capture.file_frames(coins_clip(tmp_path / "c.mp4"), 3))):
        buffer = io.BytesIO()
        Image.fromarray(frame).save(buffer, "JPEG", quality=85)
        decoded = np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"))
        pixels[pipeline_live.frame_hash(decoded)] = decoded
        jpeg = base64.b64encode(buffer.getvalue()).decode()
        lines.append(f"MNNWB_FRAME {json.dumps({'frame': index, 'jpeg': jpeg})}")
    lines.insert(1, 'MNNWB_FRAME {"frame": 9, "jpeg": "bm90IGFuIGltYWdl"}')
    done = subprocess.run([sys.executable, *LIVE, str(project / "pipeline.toml")], cwd=REPO,
                          input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = events(done.stdout)
    assert found[0]["source"] == "browser"
    assert [(e["event"], e["frame"]) for e in found[1:]] == [
        ("frame", 0), ("frame.error", 9), ("frame", 1), ("frame", 2)]
    assert found[2]["error"].startswith("not an image")  # named, and the run went on
    frames = [e for e in found if e["event"] == "frame"]
    assert_as_here(project, frames, pixels)
    assert_figures(frames)


def test_what_cannot_run_on_a_camera_is_refused_by_name(coins_pipeline: Path, tmp_path: Path) -> None:
    loud = audio_models.build(tmp_path / "audio", _convert)
    done = subprocess.run([sys.executable, *LIVE, str(loud)], cwd=REPO, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    error = events(done.stdout)[-1]
    assert error == {"event": "error", "error": "the first stage 'loudness' takes audio "
                                                "(input 'wave' of loudness.mnn); a camera gives pictures"}
    gone = str(tmp_path / "no-camera.mp4")
    done = subprocess.run([sys.executable, *LIVE, str(coins_pipeline), "--camera", gone], cwd=REPO,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert events(done.stdout)[-1] == {"event": "error", "error": f"camera {gone}: OpenCV cannot open it"}


def test_a_devices_camera_gives_the_results_of_a_run_here(
    hub_server: HubServer, agent: AgentProcess, coins_pipeline: Path, tmp_path: Path
) -> None:
    project = project_of(coins_pipeline, tmp_path / "chain")
    clip = coins_clip(tmp_path / "camera.mp4")
    sid = attach(hub_server, "p-pipe-camera")
    assert hub_server.call(deploy(hub_server.hub, "p-pipe-camera", sid, project)).failed == []
    argv = [*LIVE, "pipeline.toml", "--camera", str(clip)]
    hub_server.call(hub_server.hub.send("p-pipe-camera", p.RunStart(sid=sid, argv=argv)))
    assert exit_of(hub_server, sid, timeout=300)["code"] == 0, hub_server.recorder.output(sid)

    def stdout() -> str:
        return "".join(e.data["text"] for e in hub_server.recorder.select(
            lambda e: e.type == "log" and e.data["sid"] == sid and e.data["stream"] == "stdout"))

    def frames() -> list[dict]:
        return [e for e in events(stdout()) if e["event"] == "frame"]

    # The run's last output may reach the server just after its exit.
    wait_until(lambda: frames() and len(frames()) + frames()[-1]["dropped"] == FRAMES,
               what="every frame of the device's camera done or dropped")
    there = frames()
    assert all(f["source"] == f"camera {clip}" and f["latency_ms"] >= 0 for f in there)
    assert_as_here(project, there, clip_pixels(clip))
    assert_figures(there)
