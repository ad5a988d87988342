"""Video through OpenCV (``cv2``, the ``opencv-python-headless`` package), when the machine has
it (``cameras.py``): the frames of a container OpenCV decodes (``.mp4`` …) and a device's own
camera (V4L2, ``/dev/videoN``). Frames leave as RGB ``uint8`` height × width × 3, as ``.y4m`` frames do
(OpenCV gives BGR). Without OpenCV both are refused by name (``SourceError``)."""

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from device_bridge.playground.cameras import PACKAGE, opencv
from device_bridge.playground.sources import MAX_PIXELS, SourceError


def _rgb(cv2: ModuleType, frame: np.ndarray, width: int | None) -> np.ndarray:
    """OpenCV's BGR (or grey) frame as RGB, scaled to ``width`` keeping its aspect when given."""
    if frame.ndim == 2:
        rgb = cv2.cvtColor(frame, cv2.COLOR_GRAY2RGB)
    else:
        rgb = cv2.cvtColor(frame, cv2.COLOR_BGRA2RGB if frame.shape[2] == 4 else cv2.COLOR_BGR2RGB)
    height, now = rgb.shape[:2]
    if width and width != now:
        rgb = cv2.resize(rgb, (width, max(1, round(height * width / now))), interpolation=cv2.INTER_AREA)
    if rgb.shape[0] * rgb.shape[1] > MAX_PIXELS:
        raise SourceError(f"a {rgb.shape[1]}×{rgb.shape[0]} frame is over {MAX_PIXELS} pixels")
    return np.ascontiguousarray(rgb)


def _opened(cv2: ModuleType, target: int | str, name: str) -> Any:
    capture = cv2.VideoCapture(target)
    if not capture.isOpened():
        capture.release()
        raise SourceError(f"{name}: OpenCV cannot open it")
    return capture


def file_frames(path: Path, limit: int) -> Iterator[np.ndarray]:
    """Up to ``limit`` RGB frames of a video file OpenCV decodes."""
    cv2 = opencv()
    if cv2 is None:
        raise SourceError(f"{path.name}: only .y4m video is read here without OpenCV (the {PACKAGE} "
                          "package; cv2 does not import): convert it with ffmpeg -i in.mp4 out.y4m")
    if not path.is_file():
        raise SourceError(f"{path.name}: no such file")
    capture = _opened(cv2, str(path), path.name)
    try:
        for _ in range(limit):
            ok, frame = capture.read()
            if not ok:
                return
            yield _rgb(cv2, frame, None)
    finally:
        capture.release()


def camera_target(given: str) -> int | str:
    """``--camera``'s value as OpenCV opens it: an index (``0``) or a path (``/dev/video0``)."""
    return int(given) if given.isdigit() else given


class Camera:
    """A camera as the app's ``setCamera`` sees it: one frame at a time, always the newest. A
    thread reads frames as the camera makes them and keeps only the last; the frames it made
    while the app worked on one are dropped and counted, never queued. ``target`` is what
    ``cv2.VideoCapture`` opens — a camera index or device, or a video file, which is then read
    at its own frame rate as a camera would give it."""

    def __init__(self, target: int | str, width: int | None = None) -> None:
        cv2 = opencv()
        self.name = f"camera {target}"
        if width is not None and width <= 0:
            raise SourceError(f"{self.name}: a width of {width} pixels")
        if cv2 is None:
            raise SourceError(f"{self.name}: a device's camera is read with OpenCV (the {PACKAGE} "
                              "package), which this machine lacks")
        self.cv2, self.width = cv2, width
        self.capture = _opened(cv2, target, self.name)
        self.paced = isinstance(target, str) and Path(target).is_file()
        if width:
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self.capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self.dropped = 0
        self._newest: np.ndarray | None = None
        self._newest_at = self.captured_at = 0.0  # time.monotonic() of the frame's read
        self._ended = False
        self._ready = threading.Condition()
        self._reader = threading.Thread(target=self._read, name="camera", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        fps = self.capture.get(self.cv2.CAP_PROP_FPS) if self.paced else 0
        interval = 1 / fps if fps and fps > 0 else 0.0
        while True:
            ok, frame = self.capture.read()
            with self._ready:
                if not ok or self._ended:
                    self._ended = True
                    self._ready.notify_all()
                    return
                self.dropped += self._newest is not None
                self._newest, self._newest_at = frame, time.monotonic()
                self._ready.notify_all()
            if interval:
                time.sleep(interval)  # a file plays at its frame rate, as a camera makes frames

    def next(self) -> np.ndarray | None:
        """The newest frame the app has not had, waiting for one; None when the camera ended.
        ``captured_at`` is then when it was read from the camera."""
        with self._ready:
            self._ready.wait_for(lambda: self._newest is not None or self._ended)
            frame, self._newest = self._newest, None
            self.captured_at = self._newest_at
        return None if frame is None else _rgb(self.cv2, frame, self.width)

    def frames(self, limit: int) -> Iterator[np.ndarray]:
        try:
            for _ in range(limit):
                frame = self.next()
                if frame is None:
                    return
                yield frame
        finally:
            self.close()

    def close(self) -> None:
        with self._ready:
            self._ended = True
        self._reader.join()
        self.capture.release()
