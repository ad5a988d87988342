"""What a playground run feeds the kit: a photo for ``selectPhoto`` and a video's frames for
``setCamera``. Video is YUV4MPEG2 (``.y4m``, the format cameras' test streams and Chromium's fake
camera use), read here with numpy; other containers (``.mp4`` …) are decoded with OpenCV where
the machine has it (``capture.py``), else refused by name."""

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from device_bridge.playground.kit import GRAY, RGB, RGBA

MAX_PIXELS = 40_000_000


class SourceError(ValueError):
    """A photo or video the run cannot read; the message names the file and why."""


def photo(path: Path) -> tuple[np.ndarray, int, int, int]:
    """``(imageData, format, width, height)`` as ``photoCallback`` takes them: RGBA stays RGBA
    (0), greyscale is GRAY (3), anything else RGB (1)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            if image.width * image.height > MAX_PIXELS:
                raise SourceError(f"{path.name}: {image.width}×{image.height} is over {MAX_PIXELS} pixels")
            mode = image.mode
            data = np.asarray(image if mode in ("RGBA", "L") else image.convert("RGB")).copy()
    except (OSError, UnidentifiedImageError) as exc:
        raise SourceError(f"{path.name}: not a readable image ({exc})") from None
    fmt = RGBA if mode == "RGBA" else GRAY if mode == "L" else RGB
    return data, fmt, int(data.shape[1]), int(data.shape[0])


def decoded(encoded: str) -> np.ndarray:
    """A base64 JPEG or PNG (a frame the browser sent) as RGB ``uint8``."""
    import base64
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(base64.b64decode(encoded, validate=True))) as image:
            if image.width * image.height > MAX_PIXELS:
                raise SourceError(f"a {image.width}×{image.height} frame is over {MAX_PIXELS} pixels")
            return np.asarray(image.convert("RGB")).copy()
    except (ValueError, OSError, UnidentifiedImageError) as exc:
        raise SourceError(f"a frame that is not a JPEG or PNG image ({exc})") from None


def _header(line: bytes, path: Path) -> tuple[int, int, str]:
    fields = line.decode("ascii", "replace").split()
    if not fields or fields[0] != "YUV4MPEG2":
        raise SourceError(f"{path.name}: not a YUV4MPEG2 video")
    params = {f[0]: f[1:] for f in fields[1:] if f}
    try:
        width, height = int(params["W"]), int(params["H"])
    except (KeyError, ValueError):
        raise SourceError(f"{path.name}: its header gives no width and height") from None
    colour = params.get("C", "420jpeg")
    if not (colour.startswith("420") or colour in ("444", "mono")):
        raise SourceError(f"{path.name}: colour space C{colour} is not read (420, 444 or mono)")
    if width <= 0 or height <= 0 or width * height > MAX_PIXELS:
        raise SourceError(f"{path.name}: {width}×{height} is not a frame size this reads")
    return width, height, colour


def _rgb(y: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """BT.601 YCbCr (studio range, as y4m files carry) to RGB."""
    yf = (y.astype(np.float32) - 16) * (255 / 219)
    uf, vf = (u.astype(np.float32) - 128) * (255 / 224), (v.astype(np.float32) - 128) * (255 / 224)
    rgb = np.stack([yf + 1.402 * vf, yf - 0.344136 * uf - 0.714136 * vf, yf + 1.772 * uf], axis=-1)
    return np.clip(rgb + 0.5, 0, 255).astype(np.uint8)


def frames(path: Path, limit: int) -> Iterator[np.ndarray]:
    """Up to ``limit`` RGB frames (height × width × 3, uint8) of a ``.y4m`` file, or of another
    video through OpenCV."""
    if path.suffix.lower() != ".y4m":
        from device_bridge.playground import capture

        yield from capture.file_frames(path, limit)
        return
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise SourceError(f"{path.name}: {exc.strerror}") from None
    with handle:
        width, height, colour = _header(handle.readline(), path)
        chroma = (0, 0) if colour == "mono" else (width, height) if colour == "444" else (
            (width + 1) // 2, (height + 1) // 2)
        size = width * height + 2 * chroma[0] * chroma[1]
        for _ in range(limit):
            marker = handle.readline()
            if not marker:
                return
            if not marker.startswith(b"FRAME"):
                raise SourceError(f"{path.name}: a frame does not start with FRAME")
            raw = handle.read(size)
            if len(raw) < size:
                return  # a cut file: the frames before it were whole
            plane = np.frombuffer(raw, np.uint8)
            y = plane[: width * height].reshape(height, width)
            if colour == "mono":
                yield np.repeat(y[..., None], 3, axis=2)
                continue
            cw, ch = chroma
            u = plane[width * height: width * height + cw * ch].reshape(ch, cw)
            v = plane[width * height + cw * ch:].reshape(ch, cw)
            if colour != "444":
                u = u.repeat(2, axis=0).repeat(2, axis=1)[:height, :width]
                v = v.repeat(2, axis=0).repeat(2, axis=1)[:height, :width]
            yield _rgb(y, u, v)


def write_y4m(path: Path, rgb_frames: list[np.ndarray], fps: int = 15) -> Path:
    """RGB frames as a 4:2:0 ``.y4m`` (what Chromium's fake camera and these tests play)."""
    height, width = rgb_frames[0].shape[:2]
    with path.open("wb") as out:
        out.write(f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for frame in rgb_frames:
            r, g, b = (frame[..., i].astype(np.float32) for i in range(3))
            y = 16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255
            u = 128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255
            v = 128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255
            sub = (slice(None, None, 2), slice(None, None, 2))
            out.write(b"FRAME\n")
            for plane in (y, u[sub], v[sub]):
                out.write(np.clip(plane + 0.5, 0, 255).astype(np.uint8).tobytes())
    return path
