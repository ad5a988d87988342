"""Box helpers of the detection demos (shipped as ``boxes.py``): numpy only."""

import numpy as np


def overlap(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Intersection over union of ``box`` (x1, y1, x2, y2) with each row of ``others``."""
    x1, y1 = np.maximum(box[0], others[:, 0]), np.maximum(box[1], others[:, 1])
    x2, y2 = np.minimum(box[2], others[:, 2]), np.minimum(box[3], others[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    result: np.ndarray = inter / (area + areas - inter + 1e-9)
    return result


def suppress(boxes: np.ndarray, scores: np.ndarray, limit: float) -> list[int]:
    """Greedy non-maximum suppression, best score first: the indexes kept."""
    order, kept = np.argsort(-scores), []
    while order.size:
        best = int(order[0])
        kept.append(best)
        order = order[1:][overlap(boxes[best], boxes[order[1:]]) < limit]
    return kept
