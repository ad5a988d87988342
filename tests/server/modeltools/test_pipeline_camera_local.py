"""A pipeline on the tab's camera, run on this machine (server/playground/local.py with a
``pipeline``): the tab's ``playground`` commands start ``device_bridge.runtime.pipeline_live`` in
the project's sandbox, the browser's JPEG frames go in on stdin and each comes back with every
stage's items equal to a run of the pipeline here on the same pixels; a file that is no pipeline
of the project is refused by name."""

import base64
import io
import json
import shutil
from pathlib import Path

import numpy as np
from PIL import Image

from device_bridge.runtime import pipeline, pipeline_live
from tests.fakes.photos import photo
from tests.server.playground.test_local_runs import _next, _send, _ws

COINS = "coins.png"


def _events_until(ws, sid: str, count: int) -> list[dict]:
    """The run's ``MNNWB_PIPELINE`` events, read from its stdout until ``count`` came."""
    found: list[dict] = []
    text = ""
    while len(found) < count:
        data = _next(ws, "log", "log")
        assert data["sid"] == sid
        if data["stream"] != "stdout":
            continue  # MNN's own prints
        text += data["text"]
        *lines, text = text.split("\n")
        found += [json.loads(line[len(pipeline_live.MARK):]) for line in lines
                  if line.startswith(pipeline_live.MARK)]
    return found


def _jpeg(pixels: np.ndarray) -> tuple[str, np.ndarray]:
    """The frame as the panel sends it (base64 JPEG) and the pixels it decodes to."""
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, "JPEG", quality=85)
    return base64.b64encode(buffer.getvalue()).decode(), np.asarray(Image.open(buffer).convert("RGB"))


def test_a_pipeline_on_the_tabs_camera_runs_here_in_the_sandbox(
    client, project, coins_pipeline: Path
) -> None:
    root = Path(project["path"])
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, root / path.name)
    shutil.copy(coins_pipeline, root / "coins.toml")
    picture = np.asarray(Image.open(photo(COINS)).convert("RGB"))
    frames = [_jpeg(picture), _jpeg(np.ascontiguousarray(picture[:, ::-1]))]
    with _ws(client, project) as ws:
        _send(ws, "run.start", {"sid": "cam-1", "pipeline": "coins.toml"})
        started = _next(ws, "log", "run.started")
        assert (started["sid"], started["cwd"]) == ("cam-1", str(root))
        live = _events_until(ws, "cam-1", 1)[0]
        assert (live["event"], live["source"], live["pipeline"]) == ("live", "browser", "coins")
        done = []
        for index, (jpeg, _) in enumerate(frames):
            frame = json.dumps({"frame": index, "jpeg": jpeg})
            _send(ws, "run.stdin", {"sid": "cam-1", "text": f"MNNWB_FRAME {frame}\n"})
            done += _events_until(ws, "cam-1", 1)
        _send(ws, "run.stop", {"sid": "cam-1"})
        ended = _next(ws, "log", "run.exit")
    assert ended["sid"] == "cam-1" and ended["signal"] == 15
    runner = pipeline.Runner(pipeline.load(root / "coins.toml"))
    for event, (_, pixels) in zip(done, frames, strict=True):
        assert event["event"] == "frame" and event["hash"] == pipeline_live.frame_hash(pixels)
        here = runner.run(pixels)
        assert [s["items"] for s in event["result"]["stages"]] == [s["items"] for s in here["stages"]]
        assert len(event["result"]["stages"][2]["items"][0]["boxes"]) >= 15  # the coins
    assert [e["summary"]["frames"] for e in done] == [1, 2]


def test_a_start_naming_no_pipeline_of_the_project_is_refused(client, project) -> None:
    root = Path(project["path"])
    (root / "notes.txt").write_text("no pipeline")
    with _ws(client, project) as ws:
        for given in ("notes.txt", "../outside.toml", "absent.toml"):
            _send(ws, "run.start", {"sid": "cam-2", "pipeline": given})
            error = _next(ws, "devices", "error")
            assert (error["code"], error["ref"]) == ("bad_command", "run.start")
            assert error["message"] == f"{given}: not a pipeline file (.toml) of the project"
