"""OpenCV (``cv2``, the ``opencv-python-headless`` package) where the machine has it, and the
machine's own cameras it opens — what the agent reports in its ``hello`` — and the sources it is
told to offer as cameras (``MNNWB_AGENT_CAMERAS``). No numpy import here:
the agent imports this on a device that may have neither."""

import os
from pathlib import Path
from types import ModuleType

PACKAGE = "opencv-python-headless"
# Video files or stream URLs the agent offers as cameras, for a device whose camera is served
# another way (an RTSP stream), a demo, or a test: "clip.mp4;rtsp://cam.local/stream".
SOURCES_VARIABLE = "MNNWB_AGENT_CAMERAS"
MAX_CAMERAS = 32  # as many as a hello's DeviceInfo takes


def opencv() -> ModuleType | None:
    """``cv2``, or None on a machine without it."""
    try:
        import cv2
    except ImportError:
        return None
    return cv2


def _opens(cv2: ModuleType, target: str) -> bool:
    capture = cv2.VideoCapture(target)
    try:
        return bool(capture.isOpened())
    finally:
        capture.release()


def configured(value: str | None = None) -> list[str]:
    """The sources named in ``MNNWB_AGENT_CAMERAS`` (or ``value``): video files or stream URLs
    the agent offers as cameras besides its ``/dev/videoN``, separated by ``;``."""
    given = os.environ.get(SOURCES_VARIABLE, "") if value is None else value
    return [part.strip() for part in given.split(";") if part.strip()]


def cameras(dev: Path = Path("/dev"), extra: list[str] | None = None) -> list[str] | None:
    """The ``videoN`` devices of ``dev`` that OpenCV opens, by number, then the configured
    sources (``configured()``, or ``extra``) it opens; None without OpenCV."""
    cv2 = opencv()
    if cv2 is None:
        return None
    videos = sorted(dev.glob("video*"), key=lambda p: (len(p.name), p.name))
    candidates = [str(p) for p in videos if p.name[len("video"):].isdigit()]
    candidates += configured() if extra is None else extra
    found = []
    for target in candidates:
        if _opens(cv2, target):
            found.append(target)
        if len(found) == MAX_CAMERAS:
            break
    return found
