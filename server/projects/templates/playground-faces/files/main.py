"""Faces on the camera or a photo: MediaPipe's BlazeFace short-range detector, as the market's
"Face detection" (face-detection) ships it. Each face is drawn as a rect with its score, its six
key points (eyes, nose tip, mouth, ears) as points; label 0 says how many.

The photo or frame is letterboxed onto 128×128 black and scaled to [-1, 1]. Each of the 896
anchors gives a face logit and a box relative to it; boxes scoring above 0.5 are merged by
non-maximum suppression (overlap 0.3) and mapped back onto the picture.
"""

import os

import MNN
import MNNCV
import numpy as np

F = MNN.expr
SIDE = 128
MIN_SCORE, OVERLAP = 0.5, 0.3
LAYERS = ((8, 2), (16, 6))  # (stride, anchors per cell): 16×16×2 + 8×8×6 = 896
MODEL = os.path.join("market", "face-detection", "model.mnn")

kit = MNNCV.Kit()
work = kit.getEnvVars()["workPath"]
if not os.path.isfile(os.path.join(work, MODEL)):
    raise FileNotFoundError(f"{MODEL} is missing: install the market's Face detection "
                            "(face-detection) into this project, see README.md")
net = MNN.nn.load_module_from_file(os.path.join(work, MODEL), ["input"],
                                   ["regressors", "classificators"])


def anchors():
    centres = []
    for stride, per_cell in LAYERS:
        cells = SIDE // stride
        for y in range(cells):
            for x in range(cells):
                centres += [((x + 0.5) / cells, (y + 0.5) / cells)] * per_cell
    return np.array(centres, dtype=np.float32)


ANCHORS = anchors()


def letterbox(rgb):
    """The picture scaled to fit 128×128 (nearest pixel), centred on black."""
    height, width = rgb.shape[:2]
    scale = min(SIDE / height, SIDE / width)
    new_h, new_w = max(1, round(height * scale)), max(1, round(width * scale))
    ys = np.minimum((np.arange(new_h) / scale).astype(int), height - 1)
    xs = np.minimum((np.arange(new_w) / scale).astype(int), width - 1)
    canvas = np.zeros((SIDE, SIDE, 3), np.float32)
    top, left = (SIDE - new_h) // 2, (SIDE - new_w) // 2
    canvas[top:top + new_h, left:left + new_w] = rgb[ys][:, xs]
    return canvas, scale, left, top


def area(box):
    return (box[..., 2] - box[..., 0]) * (box[..., 3] - box[..., 1])


def suppress(boxes, scores):
    """Indices of the boxes kept by non-maximum suppression, best first."""
    order, kept = list(np.argsort(-scores)), []
    while order:
        best = order.pop(0)
        kept.append(best)
        x1 = np.maximum(boxes[best, 0], boxes[order, 0])
        y1 = np.maximum(boxes[best, 1], boxes[order, 1])
        x2 = np.minimum(boxes[best, 2], boxes[order, 2])
        y2 = np.minimum(boxes[best, 3], boxes[order, 3])
        inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
        overlap = inter / (area(boxes[best]) + area(boxes[order]) - inter + 1e-9)
        order = [i for i, o in zip(order, overlap, strict=True) if o <= OVERLAP]
    return kept


def detect(rgb):
    """Faces as (box x1, y1, x2, y2, score, six key points (x, y)) in the picture's pixels."""
    canvas, scale, left, top = letterbox(rgb[..., :3].astype(np.float32))
    image = F.const(canvas[None] * (2 / 255) - 1.0, [1, SIDE, SIDE, 3], F.NHWC)
    regressors, logits = net.forward([image])
    raw = np.array(regressors.read(), np.float32).reshape(-1, 16) / SIDE
    scores = 1.0 / (1.0 + np.exp(-np.clip(np.array(logits.read()).reshape(-1), -80, 80)))
    keep = scores > MIN_SCORE
    centres = raw[keep, :2] + ANCHORS[keep]
    sizes = raw[keep, 2:4]
    boxes = np.concatenate([centres - sizes / 2, centres + sizes / 2], axis=1)
    points = raw[keep, 4:].reshape(-1, 6, 2) + ANCHORS[keep][:, None]
    offset = np.array([left, top], np.float32)
    faces = []
    for index in suppress(boxes, scores[keep]):
        box = (boxes[index].reshape(2, 2) * SIDE - offset) / scale
        faces.append((box.ravel(), float(scores[keep][index]), (points[index] * SIDE - offset) / scale))
    return faces


def show(rgb):
    faces = detect(rgb)
    kit.setLabel(0, f"{len(faces)} face{'' if len(faces) == 1 else 's'}")
    if not faces:
        return
    rects = [[round(float(v)) for v in (b[0], b[1], b[2] - b[0], b[3] - b[1])] for b, _, _ in faces]
    kit.drawRects(rects, [f"face {score:.2f}" for _, score, _ in faces], "lime", 2)
    kit.drawPoints([[round(float(x)), round(float(y))] for _, _, p in faces for x, y in p], "yellow", 4)


def on_frame(data, format, width, height, inangle, outangle):
    show(np.asarray(data))


def on_photo(imageData, format, width, height):
    show(np.asarray(imageData))


kit.setCamera(on_frame)
kit.selectPhoto(on_photo)
