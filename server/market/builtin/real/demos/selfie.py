"""Which pixels are a person? MediaPipe's selfie segmentation.
``python demo.py [--model FILE.mnn] [IMAGE.npy | SAMPLE.npz]``.

The photo (H×W×3 RGB uint8) is stretched to 256×256 and scaled to [0, 1], as MediaPipe does;
the model gives each pixel the probability that it shows a person, and above 0.5 is a person.
The answer says how much of the photo is a person and the box around those pixels. A sample
(``.npz``: ``image`` and ``points``, rows of x, y, 1 for a person or 0 for background, labelled
by eye) is answered with the mask's value at each point instead, in the same order.
"""

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import demo_common  # noqa: E402
import imaging  # noqa: E402

SIDE, THRESHOLD = 256, 0.5


def mask(model: tuple, image: np.ndarray) -> np.ndarray:
    """The person mask at the photo's own size (nearest input pixel)."""
    net, declared = model
    data = imaging.resize(image, SIDE, SIDE) * declared["inputs"][0]["scale"]
    [probability] = demo_common.forward(net, [demo_common.tensor(data[None], "NHWC")])
    height, width = image.shape[:2]
    rows = np.minimum((np.arange(height) * SIDE) // height, SIDE - 1)
    cols = np.minimum((np.arange(width) * SIDE) // width, SIDE - 1)
    result: np.ndarray = probability.reshape(SIDE, SIDE)[rows][:, cols] > THRESHOLD
    return result


def answer(model: tuple, data) -> demo_common.Answer:
    image = data["image"] if not isinstance(data, np.ndarray) else data
    person = mask(model, image)
    ys, xs = np.nonzero(person)
    box = f"box={xs.min()},{ys.min()},{xs.max()},{ys.max()}" if len(xs) else "no person pixels"
    share = f"person {person.mean():.0%} of the photo, {box}"
    if isinstance(data, np.ndarray):
        return share, ""
    labels = " ".join(str(int(person[y, x])) for x, y, _ in data["points"])
    return f"points {labels}", share


if __name__ == "__main__":
    sys.exit(demo_common.main(HERE, demo_common.load, answer, sys.argv[1:]))
