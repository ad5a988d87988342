"""Output tensors to answers, by the model spec: top-k labels, boxes, text, a mask, an
embedding's summary. Each reader takes the raw array and returns plain JSON-able data; an array
whose shape the kind cannot be read from raises ``DecodeError`` saying what was expected.

Layouts read (batch dims of 1 are dropped first):
* ``logits`` / ``probabilities``: ``[classes]``; logits go through a softmax.
* ``boxes``: ``[n, 6]`` rows of ``x1 y1 x2 y2 score class`` in the input tensor's pixels
  (mapped back onto the file through the preprocessing ``Frame``), kept above ``threshold``.
* ``text``: ``[steps, characters]`` or ``[characters, steps]`` (the axis matching the
  character list + blank), greedy CTC: best per step, repeats merged, ``blank`` dropped.
* ``mask``: ``[classes, h, w]`` (arg-max) or ``[h, w]`` (above ``threshold``, default 0.5).
* ``embedding``: any shape; its length, L2 norm and first values.
"""

from typing import Any

import numpy as np

from device_bridge.runtime.preprocess import Frame
from device_bridge.runtime.spec import OutputSpec

TOP_K = 5
MAX_BOXES = 100
MAX_MASK_SIDE = 256


class DecodeError(ValueError):
    pass


def _squeeze(value: np.ndarray) -> np.ndarray:
    while value.ndim > 1 and value.shape[0] == 1:
        value = value[0]
    return value


def _label(labels: list[str] | None, index: int) -> str:
    return labels[index] if labels and 0 <= index < len(labels) else str(index)


def softmax(values: np.ndarray) -> np.ndarray:
    shifted = values.astype(np.float64) - np.max(values)
    exp = np.exp(shifted)
    return exp / exp.sum()


def classes(spec: OutputSpec, value: np.ndarray, labels: list[str] | None, k: int = TOP_K) -> dict[str, Any]:
    scores = _squeeze(value).astype(np.float64)
    if scores.ndim != 1:
        raise DecodeError(f"output {spec.name!r} ({spec.kind}) should be one score per class, "
                          f"it has shape {list(value.shape)}")
    if labels and len(labels) != scores.size:
        raise DecodeError(f"output {spec.name!r} has {scores.size} classes, its labels list {len(labels)}")
    probabilities = softmax(scores) if spec.kind == "logits" else scores
    order = np.argsort(-probabilities, kind="stable")[:k]
    return {"kind": "classes", "top": [
        {"index": int(i), "label": _label(labels, int(i)), "score": float(probabilities[i])} for i in order
    ]}


def boxes(spec: OutputSpec, value: np.ndarray, labels: list[str] | None,
          frame: Frame | None) -> dict[str, Any]:
    rows = _squeeze(value)
    if rows.ndim == 1 and rows.size == 6:
        rows = rows[None]
    if rows.ndim != 2 or rows.shape[1] != 6:
        raise DecodeError(f"output {spec.name!r} (boxes) should be rows of x1 y1 x2 y2 score class, "
                          f"it has shape {list(value.shape)}")
    threshold = spec.threshold if spec.threshold is not None else 0.25
    kept = rows[rows[:, 4] >= threshold]
    kept = kept[np.argsort(-kept[:, 4], kind="stable")][:MAX_BOXES]
    found = []
    for x1, y1, x2, y2, score, cls in kept.tolist():
        if frame is not None:
            x1, y1 = frame.to_file(x1, y1)
            x2, y2 = frame.to_file(x2, y2)
        found.append({"box": [round(x1, 2), round(y1, 2), round(x2, 2), round(y2, 2)],
                      "score": float(score), "class": int(cls), "label": _label(labels, int(cls))})
    return {"kind": "boxes", "threshold": threshold, "boxes": found,
            "image": [frame.width, frame.height] if frame else None}


def text(spec: OutputSpec, value: np.ndarray, characters: list[str] | None) -> dict[str, Any]:
    steps = _squeeze(value)
    if steps.ndim != 2:
        raise DecodeError(f"output {spec.name!r} (text) should be [steps, characters], "
                          f"it has shape {list(value.shape)}")
    width = len(characters) + 1 if characters else None
    if width is not None and steps.shape[1] != width and steps.shape[0] == width:
        steps = steps.T
    if width is not None and steps.shape[1] != width:
        raise DecodeError(f"output {spec.name!r} has {steps.shape[1]} classes per step; its character "
                          f"list gives {width - 1} + blank")
    best = steps.argmax(axis=1).tolist()
    chars, previous = [], None
    for index in best:
        if index != previous and index != spec.blank:
            position = index - 1 if index > spec.blank else index
            chars.append(characters[position] if characters and position < len(characters) else f"<{index}>")
        previous = index
    return {"kind": "text", "text": "".join(chars), "steps": len(best)}


def mask(spec: OutputSpec, value: np.ndarray, labels: list[str] | None) -> dict[str, Any]:
    planes = _squeeze(value)
    if planes.ndim == 3 and planes.shape[0] > 1:
        classes_map = planes.argmax(axis=0)
    elif planes.ndim in (2, 3):
        plane = planes.reshape(planes.shape[-2:])
        classes_map = (plane >= (spec.threshold if spec.threshold is not None else 0.5)).astype(np.int64)
    else:
        raise DecodeError(f"output {spec.name!r} (mask) should be [classes, h, w] or [h, w], "
                          f"it has shape {list(value.shape)}")
    height, width = classes_map.shape
    step = max(1, -(-max(height, width) // MAX_MASK_SIDE))
    small = classes_map[::step, ::step]
    counts = np.bincount(classes_map.ravel().astype(np.int64))
    return {"kind": "mask", "size": [width, height], "rows": small.astype(int).tolist(),
            "classes": [{"index": i, "label": _label(labels, i), "pixels": int(c)}
                        for i, c in enumerate(counts.tolist()) if c]}


def embedding(value: np.ndarray) -> dict[str, Any]:
    flat = value.astype(np.float64).ravel()
    return {"kind": "embedding", "length": int(flat.size), "norm": float(np.linalg.norm(flat)),
            "head": [round(float(v), 6) for v in flat[:8]]}


def tensor_summary(value: np.ndarray) -> dict[str, Any]:
    flat = value.astype(np.float64).ravel()
    return {"kind": "tensor", "shape": list(value.shape),
            "min": float(flat.min()) if flat.size else None, "max": float(flat.max()) if flat.size else None,
            "mean": float(flat.mean()) if flat.size else None}


def decode(spec: OutputSpec | None, value: np.ndarray, *, labels: list[str] | None = None,
           characters: list[str] | None = None, frame: Frame | None = None) -> dict[str, Any]:
    """One output read by its spec (a summary of the numbers when it has none)."""
    if spec is None or spec.kind == "tensor":
        return tensor_summary(value)
    if spec.kind in ("logits", "probabilities"):
        return classes(spec, value, labels)
    if spec.kind == "boxes":
        return boxes(spec, value, labels, frame)
    if spec.kind == "text":
        return text(spec, value, characters)
    if spec.kind == "mask":
        return mask(spec, value, labels)
    return embedding(value)
