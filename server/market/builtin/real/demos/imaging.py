"""Image helpers of the demos (shipped as ``imaging.py``): numpy only, no image library."""

import numpy as np


def resize(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """Bilinear resize of an H×W×C array (pixel centres aligned, as OpenCV and Pillow do)."""
    source_h, source_w = image.shape[:2]
    ys = np.clip((np.arange(height) + 0.5) * source_h / height - 0.5, 0, source_h - 1)
    xs = np.clip((np.arange(width) + 0.5) * source_w / width - 0.5, 0, source_w - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, source_h - 1), np.minimum(x0 + 1, source_w - 1)
    wy, wx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
    data = image.astype(np.float32)
    top = data[y0][:, x0] * (1 - wx) + data[y0][:, x1] * wx
    bottom = data[y1][:, x0] * (1 - wx) + data[y1][:, x1] * wx
    result: np.ndarray = top * (1 - wy) + bottom * wy
    return result


def letterbox(image: np.ndarray, height: int, width: int,
              fill: float = 0.0) -> tuple[np.ndarray, float, int, int]:
    """The image scaled to fit ``height``×``width`` with its aspect kept, centred on ``fill``;
    with the scale and the left and top padding, to map results back."""
    source_h, source_w = image.shape[:2]
    scale = min(height / source_h, width / source_w)
    new_h, new_w = max(1, round(source_h * scale)), max(1, round(source_w * scale))
    canvas = np.full((height, width, image.shape[2]), fill, dtype=np.float32)
    top, left = (height - new_h) // 2, (width - new_w) // 2
    canvas[top:top + new_h, left:left + new_w] = resize(image, new_h, new_w)
    return canvas, scale, left, top
