"""The playground kit: the API of MNN Workbench's ``MNNCV`` (``Kit()``, ``setLabel``,
``drawRects`` …, names, argument order, defaults and callback signatures as the desktop package
``MNNCV`` 0.1.12 has them), written for this workbench. Each call is one event, a JSON line
``MNNWB_KIT {...}`` on the process's stdout, which the Playground panel draws and
``mnnwb playground run`` prints; images travel as their shape and a hash (the panel asks for the
pixels of the ones it shows).

Frames come from the run (``run.py``): a photo for ``selectPhoto``, a video's frames for
``setCamera``. Each event carries the frame it was made on, so a result is drawn on its frame.
"""

import hashlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

MARK = "MNNWB_KIT "
# The image formats of the kit's callbacks.
RGBA, RGB, GRAY = 0, 1, 3


class _Session:
    """What the run set up for the kit: where to write, the current frame, the callbacks."""

    def __init__(self) -> None:
        self.out = sys.__stdout__
        self.frame: int | None = None
        self.photo: Callable[..., Any] | None = None
        self.camera: Callable[..., Any] | None = None
        self.close: Callable[[], Any] | None = None
        self.default_photo: str | None = None
        self.default_video: str | None = None

    def emit(self, call: str, **fields: Any) -> None:
        event = {"call": call, "frame": self.frame, **fields}
        out = self.out or sys.stdout
        out.write(MARK + json.dumps(event, default=_plain) + "\n")
        out.flush()


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


session = _Session()


def image_summary(data: Any) -> dict[str, Any]:
    """An image as its shape, dtype and a hash of its bytes."""
    array = np.ascontiguousarray(np.asarray(data))
    return {"shape": list(array.shape), "dtype": str(array.dtype),
            "sha256": hashlib.sha256(array.tobytes()).hexdigest()[:16]}


def _color(value: Any) -> Any:
    return value if isinstance(value, str | int | float | list | tuple) or value is None else str(value)


class Kit:
    def __init__(self) -> None:
        self.selectedImage: Any = None
        session.emit("Kit")

    def open(self, openType: Any) -> None:
        session.emit("open", openType=openType)

    def setLabel(self, index: int, text: Any, config: Any = None) -> None:
        session.emit("setLabel", index=index, text=str(text), config=config)

    def getEnvVars(self) -> dict[str, str]:
        envs = dict(os.environ)
        envs.setdefault("workPath", os.getcwd())
        return envs

    def setCamera(self, cameraCallback: Callable[..., Any], defaultVideo: str | None = None) -> None:
        """``cameraCallback(data, format, width, height, inangle, outangle)`` for each frame."""
        session.camera = cameraCallback
        session.default_video = defaultVideo
        session.emit("setCamera", defaultVideo=defaultVideo)

    def drawImage(self, data: Any) -> None:
        session.emit("drawImage", image=image_summary(data))

    def selectPhoto(self, photoCallback: Callable[..., Any], defaultImg: str | None = None) -> None:
        """``photoCallback(imageData, format, width, height)`` once the photo is chosen."""
        session.photo = photoCallback
        session.default_photo = defaultImg
        self.selectedImage = defaultImg
        session.emit("selectPhoto", defaultImg=defaultImg)

    def drawPoints(self, points: Any, color: Any = "red", width: Any = 4) -> None:
        listed = [[float(v) for v in point[:2]] for point in points]
        session.emit("drawPoints", points=listed, color=_color(color), width=width)

    def drawRects(self, coordList: Any, texts: Any, lineColor: Any = "red", lineWidth: Any = 2) -> None:
        if coordList is None or texts is None:
            raise Exception("drawRects input error, coordList or texts is None")
        if len(coordList) != len(texts):
            raise Exception(f"drawRects input error, coordList length is {len(coordList)} but texts "
                            f"length is {len(texts)}")
        rects = [[float(v) for v in coord[:4]] for coord in coordList]
        session.emit("drawRects", rects=rects, texts=[str(t) for t in texts],
                     lineColor=_color("red" if lineColor is None else lineColor),
                     lineWidth=2 if lineWidth is None else lineWidth)

    def setCloseCallback(self, closeCallback: Callable[[], Any]) -> None:
        session.close = closeCallback
        session.emit("setCloseCallback")
