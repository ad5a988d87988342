"""The Python steps a pipeline chains between its models (docs/pipelines.md): the values they
pass and the steps themselves. Plain numpy; nothing here loads a model.

A ``Picture`` is an image flowing through a pipeline: its pixels (``uint8``, height × width ×
channels, RGB) and where its top-left corner sits in the pipeline's input image, so boxes found
on a crop are reported in the input's pixels.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np


class StepError(ValueError):
    pass


@dataclass
class Picture:
    pixels: np.ndarray
    x: float = 0.0
    y: float = 0.0
    rotated: int = 0  # degrees, clockwise, turned by a ``rotate`` step
    parent: int = 0  # the index of the item it came from

    def summary(self) -> dict[str, Any]:
        height, width = self.pixels.shape[:2]
        return {
            "width": width,
            "height": height,
            "x": round(self.x, 2),
            "y": round(self.y, 2),
            "rotated": self.rotated,
        }


@dataclass
class Boxes:
    """Boxes found on one item, ``x1 y1 x2 y2`` in the pipeline input's pixels."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    parent: int = 0

    def summary(self) -> dict[str, Any]:
        return {"kind": "boxes", "boxes": self.rows}


def _components(mask: np.ndarray) -> tuple[np.ndarray, int]:
    """Labels of the 4-connected regions of ``mask`` (scipy's when there, else a flood fill)."""
    try:
        from scipy import ndimage

        labels, count = ndimage.label(mask)
        return labels, int(count)
    except ImportError:
        labels = np.zeros(mask.shape, dtype=np.int32)
        count = 0
        for y, x in zip(*np.nonzero(mask), strict=True):
            if labels[y, x]:
                continue
            count += 1
            stack = [(y, x)]
            labels[y, x] = count
            while stack:
                cy, cx = stack.pop()
                for ny, nx in ((cy - 1, cx), (cy + 1, cx), (cy, cx - 1), (cy, cx + 1)):
                    if (
                        0 <= ny < mask.shape[0]
                        and 0 <= nx < mask.shape[1]
                        and mask[ny, nx]
                        and not labels[ny, nx]
                    ):
                        labels[ny, nx] = count
                        stack.append((ny, nx))
        return labels, count


def _one_map(score: np.ndarray) -> np.ndarray:
    """The 2-D probability map inside a detector's output (leading dims of 1)."""
    plane = np.asarray(score, dtype=np.float32)
    while plane.ndim > 2:
        if plane.shape[0] != 1:
            raise StepError(f"map_to_boxes reads one map, got shape {list(score.shape)}")
        plane = plane[0]
    return plane


def _regions(plane: np.ndarray, threshold: float, min_area: int,
             min_score: float) -> Iterator[tuple[np.ndarray, np.ndarray, float]]:
    """Each connected region above ``threshold`` of at least ``min_area`` pixels scoring at
    least ``min_score`` on average: its pixels' rows and columns, and that mean."""
    labels, count = _components(plane > threshold)
    for index in range(1, count + 1):
        ys, xs = np.nonzero(labels == index)
        if ys.size < min_area:
            continue
        mean = float(plane[ys, xs].mean())
        if mean >= min_score:
            yield ys, xs, mean


def map_to_boxes(
    score: np.ndarray, threshold: float, min_area: int, min_score: float = 0.0, unclip: float = 0.0
) -> list[tuple[float, float, float, float, float]]:
    """Boxes around the connected regions of a probability map above ``threshold`` (a text
    detector's output), in the map's pixels, with each region's mean score; regions smaller
    than ``min_area`` pixels or scoring under ``min_score`` are dropped. With ``unclip``, each
    box grows on every side by its area × ``unclip`` / its perimeter, as DB (PaddleOCR's
    detector) grows the shrunk text kernels it predicts back to the text's extent; cut at the
    map's edges."""
    plane = _one_map(score)
    found = []
    for ys, xs, mean in _regions(plane, threshold, min_area, min_score):
        x1, y1, x2, y2 = float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)
        if unclip > 0:
            grow = (x2 - x1) * (y2 - y1) * unclip / (2 * ((x2 - x1) + (y2 - y1)))
            x1, y1 = max(0.0, x1 - grow), max(0.0, y1 - grow)
            x2, y2 = min(float(plane.shape[1]), x2 + grow), min(float(plane.shape[0]), y2 + grow)
        found.append((x1, y1, x2, y2, mean))
    return found


def map_to_quads(
    score: np.ndarray, threshold: float, min_area: int, min_score: float = 0.0, unclip: float = 0.0
) -> list[tuple[list[list[float]], float]]:
    """As ``map_to_boxes``, but each region's box follows the region's own long axis (its
    pixels' principal axis), so a tilted line of text gets a tilted rectangle that leaves the
    lines above and below out — what DB's minimum-area rectangles do in PaddleOCR. Each is
    four corners ``[x, y]`` (top-left, top-right, bottom-right, bottom-left, in the map's
    pixels, cut at its edges) and the region's mean score."""
    plane = _one_map(score)
    found = []
    for ys, xs, mean in _regions(plane, threshold, min_area, min_score):
        points = np.stack([xs + 0.5, ys + 0.5], axis=1).astype(np.float64)
        centre = points.mean(axis=0)
        if ys.size > 1:
            _, vectors = np.linalg.eigh(np.cov((points - centre).T))
            along = vectors[:, 1]
        else:
            along = np.array([1.0, 0.0])
        if abs(along[0]) < abs(along[1]):  # a region taller than wide: keep the box upright
            along = np.array([1.0, 0.0])
        if along[0] < 0:
            along = -along
        across = np.array([-along[1], along[0]])  # pointing down the picture
        u, v = (points - centre) @ along, (points - centre) @ across
        left, right, top, bottom = u.min() - 0.5, u.max() + 0.5, v.min() - 0.5, v.max() + 0.5
        if unclip > 0:
            width, height = right - left, bottom - top
            grow = width * height * unclip / (2 * (width + height))
            left, right, top, bottom = left - grow, right + grow, top - grow, bottom + grow
        ends = ((left, top), (right, top), (right, bottom), (left, bottom))
        corners = [centre + along * a + across * b for a, b in ends]
        width_max, height_max = float(plane.shape[1]), float(plane.shape[0])
        found.append(
            (
                [[min(max(0.0, float(x)), width_max), min(max(0.0, float(y)), height_max)]
                 for x, y in corners],
                mean,
            )
        )
    return found


def reading_order(rows: list[dict[str, Any]], line: float = 10.0) -> list[dict[str, Any]]:
    """Boxes top to bottom, and left to right within a line (tops less than ``line`` pixels
    apart), as PaddleOCR orders the text it found."""
    ordered = sorted(rows, key=lambda r: (r["box"][1], r["box"][0]))
    for end in range(len(ordered) - 1, 0, -1):
        for j in range(end):
            a, b = ordered[j]["box"], ordered[j + 1]["box"]
            if abs(b[1] - a[1]) < line and b[0] < a[0]:
                ordered[j], ordered[j + 1] = ordered[j + 1], ordered[j]
    return ordered


def iou(a: list[float], b: list[float]) -> float:
    width = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    height = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = width * height
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def nms(rows: list[dict[str, Any]], threshold: float) -> list[dict[str, Any]]:
    """The boxes that overlap no better-scored box of their class by more than ``threshold``."""
    kept: list[dict[str, Any]] = []
    for row in sorted(rows, key=lambda r: -r["score"]):
        if all(k.get("class") != row.get("class") or iou(k["box"], row["box"]) <= threshold for k in kept):
            kept.append(row)
    return kept


def crop(picture: Picture, box: list[float], pad: int, parent: int) -> Picture:
    """The part of ``picture`` under ``box`` (input pixels), ``pad`` pixels wider on each side,
    cut at the picture's edges."""
    height, width = picture.pixels.shape[:2]
    left = int(max(0, np.floor(box[0] - picture.x) - pad))
    top = int(max(0, np.floor(box[1] - picture.y) - pad))
    right = int(min(width, np.ceil(box[2] - picture.x) + pad))
    bottom = int(min(height, np.ceil(box[3] - picture.y) + pad))
    if right <= left or bottom <= top:
        raise StepError(f"box {box} is outside the picture")
    return Picture(
        picture.pixels[top:bottom, left:right].copy(), picture.x + left, picture.y + top, 0, parent
    )


def crop_quad(picture: Picture, quad: list[list[float]], parent: int) -> Picture:
    """The four-cornered region ``quad`` (input pixels: top-left, top-right, bottom-right,
    bottom-left) of ``picture`` warped to an upright rectangle as long and as tall as its
    sides, as PaddleOCR cuts a tilted line of text out of a photo."""
    from PIL import Image

    corners = np.asarray(quad, dtype=np.float64) - np.array([picture.x, picture.y])
    width = int(round(max(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[2] - corners[3]))))
    height = int(round(max(np.linalg.norm(corners[3] - corners[0]), np.linalg.norm(corners[2] - corners[1]))))
    if width < 1 or height < 1:
        raise StepError(f"quad {quad} is empty")
    pixels = picture.pixels
    image = Image.fromarray(pixels[:, :, 0] if pixels.shape[2] == 1 else pixels)
    top_left, top_right, bottom_right, bottom_left = corners.tolist()
    warped = image.transform(
        (width, height),
        Image.Transform.QUAD,
        (*top_left, *bottom_left, *bottom_right, *top_right),
        Image.Resampling.BICUBIC,
    )
    out = np.asarray(warped, dtype=np.uint8)
    left, top = float(corners[:, 0].min()), float(corners[:, 1].min())
    return Picture(out[:, :, None] if out.ndim == 2 else out, picture.x + left, picture.y + top, 0, parent)


def rotate(picture: Picture, degrees: int) -> Picture:
    """``picture`` turned clockwise by a multiple of 90 degrees."""
    if degrees % 90:
        raise StepError(f"rotate turns by multiples of 90 degrees, not {degrees}")
    turns = (degrees // 90) % 4
    return Picture(
        np.ascontiguousarray(np.rot90(picture.pixels, k=-turns)),
        picture.x,
        picture.y,
        (picture.rotated + degrees) % 360,
        picture.parent,
    )
