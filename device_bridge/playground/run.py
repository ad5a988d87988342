"""Runs a playground project as MNN Workbench's app does: ``python -m device_bridge.playground.run
PROJECT [--photo FILE] [--video FILE | --camera DEVICE [--width N]] [--frames N] [--live]``.

``import MNNCV`` (and ``mnncv``) is the workbench's kit; ``getEnvVars()["workPath"]`` is the
project folder, which is also the working directory; calls the app's MNN has and the PyPI wheel
lacks are bridged (``bridge.py``). The entry file runs as ``__main__``. Then, as the app would:
the photo a ``selectPhoto`` asked for goes to its callback (``--photo``, else its
``defaultImg``), the frames of ``setCamera``'s video go to its callback one by one (``--video``,
else its ``defaultVideo``, or the machine's own camera ``--camera``; ``--frames`` of them), and
at the end, or when the run is stopped (SIGTERM), the close callback runs. Every kit call is a
``MNNWB_KIT`` line on stdout (kit.py).
"""

import argparse
import json
import os
import runpy
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from device_bridge.playground import app, bridge, capture, live_camera, sources
from device_bridge.playground.kit import RGB, image_summary, session

SHIM = Path(__file__).resolve().parent / "shim"
FRAME_LINE, PHOTO_LINE = "MNNWB_FRAME", "MNNWB_PHOTO"
DEFAULT_FRAMES = 30


def _stopped(_signum: int, _frame: Any) -> None:
    raise SystemExit(143)


def _within(root: Path, name: str) -> Path:
    path = (root / name).resolve()
    if not path.is_relative_to(root.resolve()) and not Path(name).is_absolute():
        raise sources.SourceError(f"{name}: leaves the project")
    return path


def _feed_photo(root: Path, given: str | None) -> None:
    name = given or session.default_photo
    if session.photo is None:
        return
    if not name:
        session.emit("photo.wanted")
        return
    data, fmt, width, height = sources.photo(_within(root, name))
    session.frame = 0
    session.emit("photo", source=name, width=width, height=height, format=fmt,
                 image=image_summary(data))
    session.photo(data, fmt, width, height)
    session.frame = None


def _to_camera(callback: Callable[..., Any], frames: Iterator[np.ndarray], source: str,
               dropped: Callable[[], int] | None) -> None:
    for index, frame in enumerate(frames):
        height, width = frame.shape[:2]
        session.frame = index
        extra = {"dropped": dropped()} if dropped else {}
        session.emit("frame", source=source, width=width, height=height, format=RGB,
                     image=image_summary(frame), **extra)
        callback(frame, RGB, width, height, 0, 0)
    session.frame = None


def _feed_camera(root: Path, given: str | None, limit: int) -> None:
    name = given or session.default_video
    if session.camera is None:
        return
    if not name:
        session.emit("camera.wanted")
        return
    _to_camera(session.camera, sources.frames(_within(root, name), limit), name, None)


def _feed_device_camera(device: str, width: int | None, limit: int) -> None:
    """The frames of the device's own camera (``capture.Camera``: the newest each time)."""
    if session.camera is None:
        return
    camera = capture.Camera(capture.camera_target(device), width)
    _to_camera(session.camera, camera.frames(limit), camera.name, lambda: camera.dropped)


def _feed_from_stdin() -> None:
    """Frames and photos sent by the Playground panel, one line each: ``MNNWB_FRAME`` or
    ``MNNWB_PHOTO`` then JSON ``{"frame": n, "jpeg": base64}`` (``sources.decoded``). The panel
    sends a frame only once the one before is done (``frame.done``): frames are dropped on its
    side, never queued here. Ends when stdin does (the run is stopped)."""
    for line in sys.stdin:
        kind, _, payload = line.partition(" ")
        callback = {FRAME_LINE: session.camera, PHOTO_LINE: session.photo}.get(kind)
        if callback is None:
            continue
        try:
            message = json.loads(payload)
            session.frame = int(message.get("frame", 0))
            data = sources.decoded(str(message.get("jpeg", "")))
        except (ValueError, TypeError, AttributeError, sources.SourceError) as exc:
            session.emit("frame.error", error=str(exc))  # this frame is lost, the run goes on
            session.emit("frame.done")
            continue
        height, width = data.shape[:2]
        session.emit("frame" if kind == FRAME_LINE else "photo", source="browser", width=width,
                     height=height, format=RGB, image=image_summary(data))
        if kind == FRAME_LINE:
            callback(data, RGB, width, height, 0, 0)
        else:
            callback(data, RGB, width, height)
        session.emit("frame.done")
        session.frame = None


def run(root: Path, photo: str | None, video: str | None, frames: int, live: bool = False,
        camera: str | None = None, width: int | None = None) -> int:
    playground = app.load(root)
    if playground is None:
        raise app.AppFileError(f"{root} has no {app.APP_FILE}: it is not a playground project")
    entry = root / playground.entry
    if not entry.is_file():
        raise app.AppFileError(f"{app.APP_FILE}: the entry file {playground.entry} does not exist")
    os.chdir(root)
    os.environ["workPath"] = str(root)
    sys.path[:0] = [str(SHIM), str(entry.parent)]
    bridge.install()
    signal.signal(signal.SIGTERM, _stopped)
    session.emit("start", app=playground.to_dict())
    try:
        runpy.run_path(str(entry), run_name="__main__")
        if live:
            session.emit("live", camera=session.camera is not None, photo=session.photo is not None,
                         source=f"camera {camera}" if camera is not None else "browser")
            if camera is not None and session.camera is not None:
                live_camera.feed(camera, width)  # the device's own camera (live_camera.py)
            else:
                _feed_from_stdin()
        else:
            _feed_photo(root, photo)
            if camera is not None:
                _feed_device_camera(camera, width, frames)
            else:
                _feed_camera(root, video, frames)
    finally:
        if session.close is not None:
            session.frame = None
            session.close()
            session.emit("closed")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m device_bridge.playground.run")
    parser.add_argument("project")
    parser.add_argument("--photo", help="the photo selectPhoto gets (project-relative)")
    parser.add_argument("--video", help="the video setCamera gets (project-relative; .y4m, or "
                        "what OpenCV decodes)")
    parser.add_argument("--camera", help="setCamera gets this device's camera (0, /dev/video0)")
    parser.add_argument("--width", type=int, help="the camera's frames scaled to this width")
    parser.add_argument("--frames", type=int, default=DEFAULT_FRAMES, help="frames of the video")
    parser.add_argument("--live", action="store_true",
                        help="frames and photos come from the Playground panel on stdin; with "
                        "--camera, the frames from that camera and the results go to the panel")
    args = parser.parse_args(argv)
    try:
        return run(Path(args.project).resolve(), args.photo, args.video, max(0, args.frames), args.live,
                   args.camera, args.width)
    except (app.AppFileError, sources.SourceError) as exc:
        session.emit("error", error=str(exc))
        print(f"playground: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:  # noqa: BLE001 - the script's own failure, reported as the app would
        session.emit("error", error=f"{type(exc).__name__}: {exc}")
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
