"""The device's own camera feeding a live run (``run.py --live --camera DEVICE``): the Playground
panel picked one of the device's cameras, so the frames come from ``capture.Camera`` (the newest
each time, the rest dropped and counted) and the panel is only the screen.

After the app's callback, each frame's ``frame.done`` event says how long it took from the
camera's read to the result (``latency_ms``) and, when the panel is free, carries the frame as a
JPEG (``jpeg``, base64; at most ``PREVIEW_MAX_WIDTH`` wide) that the kit calls made on it are
drawn on. One preview is in flight at a time: the panel answers ``MNNWB_SHOWN {"frame": n}`` on
stdin once it has drawn one, and the frames done meanwhile go without theirs (never queued).
"""

import base64
import sys
import threading
import time
from typing import Any, TextIO

import numpy as np

from device_bridge.playground import capture
from device_bridge.playground.kit import RGB, image_summary, session

SHOWN_LINE = "MNNWB_SHOWN"
PREVIEW_MAX_WIDTH = 640
JPEG_QUALITY = 80
ENDLESS = sys.maxsize  # frames until the run is stopped or the camera ends


class Previews:
    """The frames sent to the panel: one at a time, the next only once it said it drew it."""

    def __init__(self, cv2: Any) -> None:
        self._cv2 = cv2
        self._free = threading.Event()
        self._free.set()
        self.skipped = 0

    def listen(self, stdin: TextIO) -> None:
        """Read the panel's ``MNNWB_SHOWN`` answers (in a thread) until stdin ends."""
        for line in stdin:
            if line.startswith(SHOWN_LINE):
                self._free.set()

    def offer(self, frame: np.ndarray) -> str | None:
        """The frame as base64 JPEG when no preview is in flight, else None (counted)."""
        if not self._free.is_set():
            self.skipped += 1
            return None
        self._free.clear()
        cv2 = self._cv2
        height, width = frame.shape[:2]
        if width > PREVIEW_MAX_WIDTH:
            size = (PREVIEW_MAX_WIDTH, max(1, round(height * PREVIEW_MAX_WIDTH / width)))
            frame = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        ok, jpeg = cv2.imencode(".jpg", cv2.cvtColor(frame, cv2.COLOR_RGB2BGR),
                                [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            self._free.set()
            return None
        return base64.b64encode(jpeg.tobytes()).decode()


def feed(device: str, width: int | None) -> None:
    """The camera's frames to ``setCamera``'s callback until the run is stopped or the camera
    ends; each frame's result goes back to the panel as above."""
    assert session.camera is not None
    camera = capture.Camera(capture.camera_target(device), width)
    previews = Previews(camera.cv2)
    threading.Thread(target=previews.listen, args=(sys.stdin,), name="shown", daemon=True).start()
    for index, frame in enumerate(camera.frames(ENDLESS)):
        height, width_now = frame.shape[:2]
        session.frame = index
        session.emit("frame", source=camera.name, width=width_now, height=height, format=RGB,
                     image=image_summary(frame), dropped=camera.dropped)
        session.camera(frame, RGB, width_now, height, 0, 0)
        latency_ms = round((time.monotonic() - camera.captured_at) * 1000, 2)
        jpeg = previews.offer(frame)
        session.emit("frame.done", width=width_now, height=height, latency_ms=latency_ms,
                     dropped=camera.dropped, **({"jpeg": jpeg} if jpeg else {}))
    session.frame = None
