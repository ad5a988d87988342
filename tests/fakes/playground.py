"""Playground projects written here (never copied): one that makes the same kit calls as the
model test MNN's repository ships as its playground example (``Kit()``, ``getEnvVars()``'s
``workPath``, ``MNN.expr.set_config`` with a backend, models listed in ``model_names.txt``, each
loaded and run), and a camera app that labels each frame by its colour with a small MNN model,
draws a rect and points on it, also takes a photo, and says goodbye in its close callback."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from device_bridge.playground.sources import write_y4m

APP = {"applicationName": "Colours", "entryFile": "/main.py", "modelName": "colours"}

# A 3-class "classifier": the mean of each colour channel. Built with MNN's expression API.
BUILD_COLOURS = """
import sys
import MNN
F = MNN.expr
x = F.placeholder([1, 3, 16, 16], F.NCHW)
x.name = "image"
y = F.reduce_mean(x, [2, 3])
y.name = "scores"
F.save([y], sys.argv[1])
"""

MODEL_TEST = '''import os
from os.path import join

import MNN
F = MNN.expr

try:
    import MNNCV
except ImportError:  # run with plain Python on a PC
    work_path = os.getcwd()
else:  # run by the workbench, as by the app
    kit = MNNCV.Kit()
    work_path = kit.getEnvVars()["workPath"]

with open(join(work_path, "model_names.txt")) as names:
    models = [join(work_path, "models", line.strip()) for line in names if line.strip()]

F.set_config(backend=F.Backend.CPU)
for index, path in enumerate(models):
    net = MNN.nn.load_module_from_file(path, ["image"], ["scores"])
    image = F.placeholder([1, 3, 16, 16], F.NCHW)
    image.write([0.5] * (3 * 16 * 16))
    scores = net.forward(image)
    kit.setLabel(index, "%s %s" % (os.path.basename(path), list(scores.shape)))
'''

CAMERA_APP = '''import os

import numpy as np
import MNN
import MNNCV

F = MNN.expr
kit = MNNCV.Kit()
work = kit.getEnvVars()["workPath"]
net = MNN.nn.load_module_from_file(os.path.join(work, "models", "colours.mnn"), ["image"], ["scores"])
NAMES = ["red", "green", "blue"]


def classify(data, width, height):
    rgb = np.asarray(data, dtype=np.float32)[..., :3] / 255.0
    small = rgb[:: max(1, height // 16), :: max(1, width // 16)][:16, :16]
    image = F.placeholder([1, 3, 16, 16], F.NCHW)
    image.write(np.ascontiguousarray(small.transpose(2, 0, 1)).ravel().tolist())
    scores = net.forward(image).read().ravel()
    return NAMES[int(np.argmax(scores))], float(np.max(scores))


def on_frame(data, format, width, height, inangle, outangle):
    name, score = classify(data, width, height)
    kit.setLabel(0, "%s %.2f" % (name, score))
    kit.drawRects([[2, 2, width - 4, height - 4]], [name], lineColor="yellow", lineWidth=3)
    kit.drawPoints([[width / 2, height / 2]], color="white", width=6)


def on_photo(data, format, width, height):
    name, _ = classify(data, width, height)
    kit.setLabel(1, "photo: %s" % name)
    kit.drawImage(data)


def on_close():
    kit.setLabel(0, "bye")


kit.setCloseCallback(on_close)
kit.selectPhoto(on_photo, defaultImg="red.png")
kit.setCamera(on_frame, defaultVideo="clip.y4m")
'''

SIZE = (48, 64)  # height, width
COLOURS = {"red": (220, 30, 30), "green": (30, 200, 40), "blue": (20, 40, 230)}


def colour_frame(name: str) -> np.ndarray:
    return np.full((*SIZE, 3), COLOURS[name], np.uint8)


def _project(folder: Path, main: str) -> Path:
    (folder / "models").mkdir(parents=True)
    (folder / "app.mnnplayground").write_text(json.dumps(APP))
    (folder / "main.py").write_text(main)
    subprocess.run([sys.executable, "-c", BUILD_COLOURS, str(folder / "models" / "colours.mnn")],
                   check=True, capture_output=True, timeout=60)
    return folder


def model_test_project(folder: Path) -> Path:
    _project(folder, MODEL_TEST)
    (folder / "model_names.txt").write_text("colours.mnn\n")
    return folder


def camera_project(folder: Path) -> Path:
    from PIL import Image

    _project(folder, CAMERA_APP)
    write_y4m(folder / "clip.y4m", [colour_frame(n) for n in ("red", "green", "blue")])
    Image.fromarray(colour_frame("red")).save(folder / "red.png")
    Image.fromarray(colour_frame("blue")).save(folder / "blue.png")
    return folder


def write_mp4(path: Path, names: tuple[str, ...] = ("red", "green", "blue"), fps: int = 15) -> Path:
    """The colour frames as an MPEG-4 (``mp4v``) ``.mp4``, written with OpenCV (which takes BGR)."""
    import cv2

    height, width = SIZE
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (width, height))
    assert writer.isOpened(), "OpenCV cannot write mp4v here"
    for name in names:
        writer.write(np.ascontiguousarray(colour_frame(name)[..., ::-1]))
    writer.release()
    return path
