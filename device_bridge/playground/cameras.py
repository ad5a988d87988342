"""OpenCV (``cv2``, the ``opencv-python-headless`` package) where the machine has it, and the
machine's own cameras it opens — what the agent reports in its ``hello``. No numpy import here:
the agent imports this on a device that may have neither."""

from pathlib import Path
from types import ModuleType

PACKAGE = "opencv-python-headless"
MAX_CAMERAS = 32  # as many as a hello's DeviceInfo takes


def opencv() -> ModuleType | None:
    """``cv2``, or None on a machine without it."""
    try:
        import cv2
    except ImportError:
        return None
    return cv2


def cameras(dev: Path = Path("/dev")) -> list[str] | None:
    """The ``videoN`` devices of ``dev`` that OpenCV opens, by number; None without OpenCV."""
    cv2 = opencv()
    if cv2 is None:
        return None
    found = []
    for path in sorted(dev.glob("video*"), key=lambda p: (len(p.name), p.name)):
        if not path.name[len("video"):].isdigit():
            continue
        capture = cv2.VideoCapture(str(path))
        if capture.isOpened():
            found.append(str(path))
        capture.release()
        if len(found) == MAX_CAMERAS:
            break
    return found
