"""Read the text in an image: PaddleOCR's PP-OCRv4 detector, orientation classifier and
recogniser as one pipeline (``pipeline.toml`` beside this file describes the same chain for the
workbench's pipeline runner). ``python demo.py [--model det-int8.mnn] [IMAGE.npy]``.

Detect: the image (H×W×3 RGB uint8) as BGR, ``(pixel / 255 - 0.5) / 0.5``, sides multiples of
32 up to 960; the map above 0.3 split into connected regions, each kept when its mean probability
reaches 0.5 and grown by DB's unclip (area × 1.6 / perimeter). Classify: each region's crop at
height 48, up to 192 wide, turned 180° when the classifier says so with 0.9. Recognise: the crop at
height 48 (at least 320 wide, padded), greedy CTC over the character list. The answer is the lines
in reading order, joined by `` | ``.
"""

import math
import sys
import tomllib
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import demo_common  # noqa: E402
import imaging  # noqa: E402

MULTIPLE, MAX_SIDE = 32, 960
THRESHOLD, MIN_SCORE, UNCLIP, MIN_SIDE = 0.3, 0.5, 1.6, 3
HEIGHT, CLS_WIDTH, REC_WIDTH, TURN_SCORE = 48, 192, 320, 0.9


def load(det: Path) -> dict:
    """The three models (``det.mnn``, ``cls.mnn``, ``rec.mnn``, or all ``-int8``) and the
    characters."""
    suffix = det.stem.removeprefix("det")
    nets = {}
    for stem in ("det", "cls", "rec"):
        model = det.parent / f"{stem}{suffix}.mnn"
        # The fp32 model's spec: the 8-bit one has the same inputs and outputs.
        spec = tomllib.loads((det.parent / f"{stem}.mnn.model.toml").read_text("utf-8"))
        nets[stem] = demo_common.load_net(model, spec)
    lines = (det.parent / "ppocr_keys.txt").read_text(encoding="utf-8").split("\n")
    return {**nets, "characters": lines[:-1]}


def _normalised(image: np.ndarray) -> np.ndarray:
    return ((image[:, :, ::-1] / 255.0 - 0.5) / 0.5).transpose(2, 0, 1)[None]


def _runs(row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    edges = np.diff(np.concatenate([[0], row.astype(np.int8), [0]]))
    return np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]


def components(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes (x1, y1, x2, y2, ends exclusive) of the 8-connected regions of ``mask``, found by
    joining each row's runs to the touching runs of the row above."""
    parent: list[int] = []

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    runs: list[tuple[int, int, int, int]] = []
    above: list[tuple[int, int, int]] = []
    for y, row in enumerate(mask):
        current = []
        for start, end in zip(*_runs(row), strict=True):
            parent.append(len(parent))
            for a_start, a_end, a_id in above:
                if a_start <= end and a_end >= start:
                    parent[root(a_id)] = root(len(parent) - 1)
            current.append((start, end, len(parent) - 1))
            runs.append((y, start, end, len(parent) - 1))
        above = current
    boxes: dict[int, list[int]] = {}
    for y, start, end, run in runs:
        box = boxes.setdefault(root(run), [start, y, end, y + 1])
        box[0], box[1] = min(box[0], start), min(box[1], y)
        box[2], box[3] = max(box[2], end), max(box[3], y + 1)
    return [(box[0], box[1], box[2], box[3]) for box in boxes.values()]


def regions(model: dict, image: np.ndarray) -> list[np.ndarray]:
    """Text boxes in the image's pixels, in reading order."""
    height, width = image.shape[:2]
    scale = min(1.0, MAX_SIDE / max(height, width))
    fit_h = max(MULTIPLE, round(height * scale / MULTIPLE) * MULTIPLE)
    fit_w = max(MULTIPLE, round(width * scale / MULTIPLE) * MULTIPLE)
    [probability] = demo_common.forward(model["det"], [demo_common.tensor(
        _normalised(imaging.resize(image, fit_h, fit_w)))])
    probability = probability.reshape(fit_h, fit_w)
    found = []
    for x1, y1, x2, y2 in components(probability > THRESHOLD):
        w, h = x2 - x1, y2 - y1
        if min(w, h) < MIN_SIDE or probability[y1:y2, x1:x2].mean() < MIN_SCORE:
            continue
        grow = w * h * UNCLIP / (2 * (w + h))
        box = np.array([x1 - grow, y1 - grow, x2 + grow, y2 + grow])
        found.append(np.clip(box * ([width / fit_w, height / fit_h] * 2), 0,
                             [width, height, width, height]))
    return sorted(found, key=lambda b: (round(b[1] / 10), b[0]))


def _line_input(crop: np.ndarray, width: int, fixed: bool) -> np.ndarray:
    """The crop at height 48, its aspect kept, padded on the right to ``width`` (or to its own
    width when not ``fixed`` and wider)."""
    scaled = min(width, math.ceil(HEIGHT * crop.shape[1] / crop.shape[0])) if fixed else \
        math.ceil(HEIGHT * crop.shape[1] / crop.shape[0])
    total = width if fixed else max(width, scaled)
    data = np.zeros((1, 3, HEIGHT, total), dtype=np.float32)
    data[:, :, :, :scaled] = _normalised(imaging.resize(crop, HEIGHT, scaled))
    return data


def upright(model: dict, crop: np.ndarray) -> np.ndarray:
    [probabilities] = demo_common.forward(model["cls"], [demo_common.tensor(
        _line_input(crop, CLS_WIDTH, fixed=True))])
    flat = probabilities.reshape(-1)
    return crop[::-1, ::-1] if flat.argmax() == 1 and flat[1] >= TURN_SCORE else crop


def read(model: dict, crop: np.ndarray) -> str:
    [scores] = demo_common.forward(model["rec"], [demo_common.tensor(
        _line_input(crop, REC_WIDTH, fixed=False))])
    best = scores.reshape(-1, scores.shape[-1]).argmax(axis=1)
    kept = [int(c) for i, c in enumerate(best) if c != 0 and (i == 0 or c != best[i - 1])]
    return "".join(model["characters"][c - 1] for c in kept).strip()


def answer(model: dict, image: np.ndarray) -> demo_common.Answer:
    lines = []
    for x1, y1, x2, y2 in regions(model, image):
        crop = image[int(y1):math.ceil(y2), int(x1):math.ceil(x2)]
        lines.append(read(model, upright(model, crop)))
    return " | ".join(line for line in lines if line) or "no text", ""


if __name__ == "__main__":
    sys.exit(demo_common.main(HERE, load, answer, sys.argv[1:]))
