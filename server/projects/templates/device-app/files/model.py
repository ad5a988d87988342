"""Build the app's tiny demo model: which colour dominates an RGB image.

The network averages each channel over the image and scores the averages with a fixed linear
layer, so its answers are predictable. Replace it with your own converted model: the app only
relies on the input name ``image`` ([1, 3, H, W], NCHW, float) and output name ``probs``.
"""

import MNN
import numpy as np

F = MNN.expr
INPUT_SIZE = 32


def build(path: str) -> None:
    image = F.placeholder([1, 3, INPUT_SIZE, INPUT_SIZE], F.NCHW)
    image.name = "image"
    means = F.reduce_mean(image, [2, 3])
    weights = F.const(np.eye(3, dtype=np.float32) * 8.0, [3, 3], F.NCHW)
    probs = F.softmax(F.matmul(means, weights), 1)
    probs.name = "probs"
    F.save([probs], path)
