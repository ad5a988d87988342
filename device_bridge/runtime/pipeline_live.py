"""A pipeline run on a camera, frame after frame (docs/pipelines.md, "On a camera"):
``python -m device_bridge.runtime.pipeline_live PIPELINE [--camera DEVICE [--width W]]``.

The same ``pipeline.Runner`` as a run on photos runs each frame (its RGB pixels are the
pipeline's ``image``, fed to the first stage through the stage's model spec as a photo is).
Without ``--camera`` the frames are the browser's: ``MNNWB_FRAME {"frame": n, "jpeg": …}`` lines
on stdin, one at a time (the panel sends the next only when this one is done and counts the
rest as dropped). With ``--camera`` they are the device's own (``capture.Camera``, the newest
each time, the others dropped and counted), each result carrying the frame as a JPEG when the
panel is free (``live_camera.Previews``, answered by ``MNNWB_SHOWN``).

Each frame's result is one line ``MNNWB_PIPELINE {"event": "frame", "frame", "result",
"summary", …}`` on stdout, ``summary`` the median and p90 of each stage and end to end over the
frames so far. A frame that cannot be read or that a stage fails on is ``frame.error`` and the
run goes on; a pipeline that cannot run on a camera (it does not parse, its first stage takes
audio, the camera cannot be opened) is ``error`` and exit code 2. No server imports.
"""

import argparse
import base64
import binascii
import hashlib
import io
import json
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from device_bridge.runtime import pipeline
from device_bridge.runtime.pipeline_batch import summary
from device_bridge.runtime.pipeline_spec import INPUT, PipelineError

MARK = "MNNWB_PIPELINE "
FRAME_LINE = "MNNWB_FRAME "
BROWSER = "browser"


class CameraRefused(Exception):
    """The pipeline cannot run on a camera, named."""


def emit(event: str, **fields: Any) -> None:
    print(MARK + json.dumps({"event": event, **fields}), flush=True)


def frame_hash(pixels: np.ndarray) -> str:
    """The frame's pixels as a short hash: which frame a result belongs to, here and there."""
    return hashlib.sha256(np.ascontiguousarray(pixels).tobytes()).hexdigest()[:16]


def runner(file: Path) -> pipeline.Runner:
    """The pipeline ready for camera frames; one whose first stage takes audio is refused."""
    try:
        ready = pipeline.Runner(pipeline.load(file))
    except PipelineError as exc:
        raise CameraRefused(f"{file.name}: {exc}") from None
    for stage in ready.pipeline.stages:
        model = ready.models.get(stage.id)
        if stage.input == INPUT and model is not None and model.input.kind == "audio":
            file_name = stage.model.name if stage.model else stage.id
            raise CameraRefused(f"the first stage {stage.id!r} takes audio (input {model.name!r} of "
                                f"{file_name}); a camera gives pictures")
    return ready


class Figures:
    """Each frame's times, kept small, for the median and p90 over the frames so far."""

    def __init__(self) -> None:
        self._runs: list[dict[str, Any]] = []

    def add(self, result: dict[str, Any]) -> dict[str, Any]:
        stages = [{"id": s["id"], "ms": s["ms"], "memory_mb": s.get("memory_mb")} for s in result["stages"]]
        self._runs.append({"ms": result["ms"], "memory_mb": result.get("memory_mb"),
                           "peak_rss_mb": result.get("peak_rss_mb"), "stages": stages})
        return {"frames": len(self._runs), **summary(self._runs)}


def browser_frames(stdin: TextIO) -> Iterator[tuple[int, np.ndarray | str]]:
    """The browser's frames from stdin: (index, RGB pixels), or (index, why it is no picture)."""
    from PIL import Image, UnidentifiedImageError

    for line in stdin:
        if not line.startswith(FRAME_LINE):
            continue
        try:
            message = json.loads(line[len(FRAME_LINE):])
            index = int(message["frame"])
        except (ValueError, KeyError, TypeError):
            continue  # not a frame line of the panel's
        try:
            with Image.open(io.BytesIO(base64.b64decode(message["jpeg"], validate=True))) as picture:
                yield index, np.asarray(picture.convert("RGB"))
        except (KeyError, TypeError, binascii.Error, UnidentifiedImageError, OSError) as exc:
            yield index, f"not an image: {exc}"


def run_frame(ready: pipeline.Runner, figures: Figures, index: int, pixels: np.ndarray,
              **fields: Any) -> dict[str, Any] | None:
    """One frame through the pipeline; its ``frame`` event, or ``frame.error`` (then None)."""
    try:
        result = ready.run(pixels)
    except PipelineError as exc:
        emit("frame.error", frame=index, error=f"{exc.where}: {exc.reason}")
        return None
    return {"frame": index, "hash": frame_hash(pixels), "result": result, "summary": figures.add(result),
            **fields}


def from_browser(ready: pipeline.Runner) -> None:
    figures = Figures()
    for index, frame in browser_frames(sys.stdin):
        if isinstance(frame, str):
            emit("frame.error", frame=index, error=frame)
            continue
        done = run_frame(ready, figures, index, frame)
        if done is not None:
            emit("frame", **done)


def from_camera(ready: pipeline.Runner, device: str, width: int | None) -> None:
    from device_bridge.playground import capture
    from device_bridge.playground.live_camera import ENDLESS, Previews
    from device_bridge.playground.sources import SourceError

    try:
        camera = capture.Camera(capture.camera_target(device), width)
    except SourceError as exc:
        raise CameraRefused(str(exc)) from None
    previews = Previews(camera.cv2)
    threading.Thread(target=previews.listen, args=(sys.stdin,), name="shown", daemon=True).start()
    figures = Figures()
    for index, frame in enumerate(camera.frames(ENDLESS)):
        done = run_frame(ready, figures, index, frame, source=camera.name)
        if done is None:
            continue
        done["latency_ms"] = round((time.monotonic() - camera.captured_at) * 1000, 2)
        done["dropped"] = camera.dropped
        jpeg = previews.offer(frame)
        emit("frame", **done, **({"jpeg": jpeg} if jpeg else {}))


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="pipeline_live", description="a pipeline on a camera, per frame")
    parse.add_argument("pipeline", type=Path, help="the pipeline's .toml file")
    parse.add_argument("--camera", help="the device's camera (an index, /dev/videoN, or a source OpenCV "
                       "opens); without it, MNNWB_FRAME lines on stdin")
    parse.add_argument("--width", type=int, help="the camera's frames scaled to this width (aspect kept)")
    return parse


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        ready = runner(args.pipeline)
        emit("live", pipeline=ready.pipeline.name, source=f"camera {args.camera}" if args.camera else BROWSER,
             stages=[INPUT, *(s.id for s in ready.pipeline.stages)])
        if args.camera:
            from_camera(ready, args.camera, args.width)
        else:
            from_browser(ready)
    except CameraRefused as exc:
        emit("error", error=str(exc))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
