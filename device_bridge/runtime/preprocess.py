"""Files to input tensors, by the model spec: images (``.jpg .jpeg .png .bmp``), audio
(``.wav``), arrays (``.npy``, ``.npz``).

Every failure is an ``InputFileError`` naming the file and the reason (``truncated``, ``not an
image``, ``has 2 channels, the input takes 1``): a caller skips it and says so, or refuses the
run; a bad file is never counted as a sample. Images are decoded with Pillow (it refuses
truncated and oversized files instead of returning half an image).
"""

import io
import warnings
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from device_bridge.runtime.spec import InputSpec

if TYPE_CHECKING:
    from PIL.Image import Image

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
AUDIO_SUFFIXES = (".wav",)
ARRAY_SUFFIXES = (".npy", ".npz")
SUFFIXES = IMAGE_SUFFIXES + AUDIO_SUFFIXES + ARRAY_SUFFIXES
MAX_PIXELS = 40_000_000
MAX_FILE_BYTES = 256 << 20
LETTERBOX_FILL = 114


class InputFileError(ValueError):
    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path.name}: {reason}")
        self.path, self.reason = path, reason


@dataclass(frozen=True)
class Frame:
    """Where the tensor's pixels came from, to map boxes and masks back onto the file:
    ``x_file = (x_tensor - pad_x) / scale_x``."""

    width: int
    height: int
    scale_x: float = 1.0
    scale_y: float = 1.0
    pad_x: float = 0.0
    pad_y: float = 0.0

    def to_file(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.pad_x) / self.scale_x, (y - self.pad_y) / self.scale_y


def _read(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputFileError(path, f"{size} bytes, over the {MAX_FILE_BYTES >> 20} MiB limit")
        if size == 0:
            raise InputFileError(path, "empty file")
        return path.read_bytes()
    except OSError as exc:
        raise InputFileError(path, exc.strerror or str(exc)) from None


def _decoded(path: Path, color: str) -> "Image":
    """The image as Pillow holds it once decoded, in mode L (GRAY) or RGB."""
    from PIL import Image, UnidentifiedImageError

    data = _read(path)
    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                image.load()
                converted = image.convert("L" if color == "GRAY" else "RGB")
    except UnidentifiedImageError:
        raise InputFileError(path, "not an image Pillow can read") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise InputFileError(path, f"more than {MAX_PIXELS:,} pixels") from None
    except OSError as exc:  # truncated or broken data
        raise InputFileError(path, f"cannot be decoded ({exc})") from None
    return converted


def decode_image(path: Path, color: str = "RGB") -> np.ndarray:
    """The image as ``uint8`` ``[height, width, channels]`` in ``color`` order (GRAY: 1 channel)."""
    pixels = np.asarray(_decoded(path, color), dtype=np.uint8)
    if color == "GRAY":
        return pixels[:, :, None]
    return pixels[:, :, ::-1] if color == "BGR" else pixels


# Pixels to fit: an array ``[height, width, channels]``, or an image as Pillow decoded it (L or
# RGB), which is resized before it becomes an array: two copies of the whole photo fewer.
Pixels = Any


def _resize(pixels: Pixels, width: int, height: int) -> np.ndarray:
    from PIL import Image

    if isinstance(pixels, np.ndarray):
        mode = "L" if pixels.shape[2] == 1 else "RGB"
        image = Image.fromarray(pixels[:, :, 0] if mode == "L" else pixels, mode)
    else:
        image, mode = pixels, pixels.mode
    resized = np.asarray(image.resize((width, height), Image.Resampling.BILINEAR), dtype=np.uint8)
    return resized[:, :, None] if mode == "L" else resized


def _shape(pixels: Pixels) -> tuple[int, int, int]:
    """(height, width, channels)."""
    if isinstance(pixels, np.ndarray):
        return pixels.shape[0], pixels.shape[1], pixels.shape[2]
    return pixels.height, pixels.width, 1 if pixels.mode == "L" else 3


def fit(pixels: Pixels, width: int, height: int, how: str) -> tuple[np.ndarray, Frame]:
    """``pixels`` at ``width`` × ``height``: stretched, letterboxed (aspect kept, the rest filled
    with grey 114, centred) or centre-cropped after scaling the short side."""
    source_h, source_w, channels = _shape(pixels)
    if how == "stretch":
        return _resize(pixels, width, height), Frame(source_w, source_h, width / source_w, height / source_h)
    if how == "letterbox":
        scale = min(width / source_w, height / source_h)
        new_w, new_h = max(1, round(source_w * scale)), max(1, round(source_h * scale))
        canvas = np.full((height, width, channels), LETTERBOX_FILL, dtype=np.uint8)
        pad_x, pad_y = (width - new_w) // 2, (height - new_h) // 2
        canvas[pad_y:pad_y + new_h, pad_x:pad_x + new_w] = _resize(pixels, new_w, new_h)
        return canvas, Frame(source_w, source_h, new_w / source_w, new_h / source_h, pad_x, pad_y)
    scale = max(width / source_w, height / source_h)  # center_crop
    new_w, new_h = max(width, round(source_w * scale)), max(height, round(source_h * scale))
    resized = _resize(pixels, new_w, new_h)
    left, top = (new_w - width) // 2, (new_h - height) // 2
    return (resized[top:top + height, left:left + width],
            Frame(source_w, source_h, new_w / source_w, new_h / source_h, -left, -top))


def _hw(spec: InputSpec, shape: list[int]) -> tuple[int, int]:
    return (shape[2], shape[3]) if spec.layout == "NCHW" else (shape[1], shape[2])


def image_tensor(spec: InputSpec, shape: list[int], pixels: Pixels) -> tuple[np.ndarray, Frame]:
    """Decoded pixels to the input tensor of ``shape``: resized by ``spec.resize``, then
    ``(pixel * scale - mean) / std`` per channel, in the spec's layout and dtype."""
    height, width = _hw(spec, shape)
    fitted, frame = fit(pixels, width, height, spec.resize)
    values = fitted.astype(np.float32)
    if spec.scale != 1.0:
        values *= np.float32(spec.scale)
    if spec.mean:
        values -= np.asarray(spec.mean, dtype=np.float32)
    if spec.std:
        values /= np.asarray(spec.std, dtype=np.float32)
    if spec.layout == "NCHW":
        values = values.transpose(2, 0, 1)
    batch = shape[0]
    tensor = np.broadcast_to(values[None], (batch, *values.shape)) if batch > 1 else values[None]
    return np.ascontiguousarray(tensor, dtype=np.dtype(spec.dtype)), frame


def aspect_tensor(
    spec: InputSpec,
    shape: list[int],
    pixels: np.ndarray,
    multiple: int = 1,
    max_side: int | None = None,
    min_side: int | None = None,
) -> tuple[np.ndarray, Frame]:
    """Pixels to an input tensor with their aspect kept, as PaddleOCR feeds its models (a
    pipeline stage's ``fit = "aspect"``). Both sides open in the model (a detector): the picture
    at its own size, scaled up when its short side is under ``min_side``, down when its long
    side passes ``max_side`` (that wins), each side rounded to a ``multiple``. Height fixed (a
    classifier or recogniser): the picture scaled to that height, its width from the aspect (at
    most ``max_side``, at most the model's width when fixed), then padded on the right with
    zeros — after normalising, as PaddleOCR pads — to ``shape``'s width, or when the model
    leaves the width open and the picture is wider, to its own width rounded up to a
    ``multiple``."""
    height_at, width_at = (2, 3) if spec.layout == "NCHW" else (1, 2)
    source_h, source_w = int(pixels.shape[0]), int(pixels.shape[1])
    step = max(1, multiple)
    if spec.shape[height_at] <= 0:
        scale = max(1.0, min_side / min(source_h, source_w)) if min_side else 1.0
        if max_side:
            scale = min(scale, max_side / max(source_h, source_w))
        new_h = max(step, round(source_h * scale / step) * step)
        new_w = max(step, round(source_w * scale / step) * step)
        width = new_w
    else:
        new_h = shape[height_at]
        new_w = max(1, int(np.ceil(new_h * source_w / source_h)))
        if max_side:
            new_w = min(new_w, max_side)
        if spec.shape[width_at] > 0:
            new_w = min(new_w, spec.shape[width_at])
            width = spec.shape[width_at]
        else:
            width = max(shape[width_at], -(-new_w // step) * step)
    values = _resize(pixels, new_w, new_h).astype(np.float32)
    if spec.scale != 1.0:
        values *= np.float32(spec.scale)
    if spec.mean:
        values -= np.asarray(spec.mean, dtype=np.float32)
    if spec.std:
        values /= np.asarray(spec.std, dtype=np.float32)
    if width > new_w:
        padded = np.zeros((new_h, width, values.shape[2]), dtype=np.float32)
        padded[:, :new_w] = values
        values = padded
    if spec.layout == "NCHW":
        values = values.transpose(2, 0, 1)
    return (
        np.ascontiguousarray(values[None], dtype=np.dtype(spec.dtype)),
        Frame(source_w, source_h, new_w / source_w, new_h / source_h),
    )


def audio_samples(path: Path, sample_rate: int) -> np.ndarray:
    """A PCM ``.wav`` file as float32 mono samples in [-1, 1]; a file at another rate is
    refused (resampling changes what the model hears)."""
    try:
        with wave.open(io.BytesIO(_read(path))) as reader:
            rate, width, channels = reader.getframerate(), reader.getsampwidth(), reader.getnchannels()
            raw = reader.readframes(reader.getnframes())
    except (wave.Error, EOFError) as exc:
        raise InputFileError(path, f"not a PCM wav file ({exc})") from None
    if rate != sample_rate:
        raise InputFileError(path, f"sampled at {rate} Hz, the input takes {sample_rate} Hz")
    kinds = {1: (np.uint8, 128.0, 128.0), 2: (np.int16, 0.0, 32768.0), 4: (np.int32, 0.0, 2147483648.0)}
    if width not in kinds:
        raise InputFileError(path, f"{8 * width}-bit samples are not read (8, 16 or 32-bit PCM)")
    dtype, offset, full = kinds[width]
    usable = len(raw) - len(raw) % (width * channels)
    samples = (np.frombuffer(raw[:usable], dtype=dtype).astype(np.float32) - offset) / full
    return samples.reshape(-1, channels).mean(axis=1)


def audio_tensor(spec: InputSpec, shape: list[int], samples: np.ndarray) -> np.ndarray:
    """Samples into ``shape``: the last dim is the window; shorter audio is zero-padded,
    longer is cut (the result says which, through ``fit_note``)."""
    length = shape[-1]
    window = np.zeros(length, dtype=np.float32)
    window[: min(length, samples.size)] = samples[:length]
    return np.ascontiguousarray(np.broadcast_to(window, shape), dtype=np.dtype(spec.dtype))


def array_value(path: Path, name: str) -> np.ndarray:
    """A ``.npy`` array, or the ``name`` entry of a ``.npz`` (its only entry when it has one)."""
    try:
        if path.suffix.lower() == ".npy":
            return np.load(io.BytesIO(_read(path)), allow_pickle=False)
        with np.load(io.BytesIO(_read(path)), allow_pickle=False) as archive:
            if name in archive.files:
                return archive[name]
            if len(archive.files) == 1:
                return archive[archive.files[0]]
            raise InputFileError(path, f"has no array named {name!r} (it has {', '.join(archive.files)})")
    except (ValueError, OSError, EOFError) as exc:
        raise InputFileError(path, f"not a numpy array file ({exc})") from None


def tensor(spec: InputSpec, shape: list[int], path: Path) -> tuple[np.ndarray, Frame | None]:
    """One input's tensor from one file, by the file's kind and the input's spec."""
    suffix = path.suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        if spec.kind != "image":
            raise InputFileError(path, f"is an image; input {spec.name!r} is declared {spec.kind} "
                                       '(set kind = "image" in its spec)')
        if spec.color == "BGR":  # the channels swapped as an array
            return image_tensor(spec, shape, decode_image(path, spec.color))
        return image_tensor(spec, shape, _decoded(path, spec.color))
    if suffix in AUDIO_SUFFIXES:
        if spec.kind != "audio" or spec.sample_rate is None:
            raise InputFileError(path, f"is audio; input {spec.name!r} is declared {spec.kind} "
                                       '(set kind = "audio" and sample_rate)')
        return audio_tensor(spec, shape, audio_samples(path, spec.sample_rate)), None
    if suffix in ARRAY_SUFFIXES:
        value = array_value(path, spec.name)
        if int(np.prod(value.shape)) != int(np.prod(shape)):
            raise InputFileError(path, f"holds shape {list(value.shape)}; "
                                       f"input {spec.name!r} runs at {shape}")
        return np.ascontiguousarray(value.reshape(shape), dtype=np.dtype(spec.dtype)), None
    raise InputFileError(path, f"{suffix or 'no suffix'} is not an input file ({' '.join(SUFFIXES)})")


def expand(paths: list[Path], limit: int = 10_000) -> list[Path]:
    """Files from files and folders (a folder: its input files, sorted, not recursing into
    hidden folders), at most ``limit``."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES
                            and not any(part.startswith(".") for part in p.relative_to(path).parts))
        else:
            found.append(path)
    return found[:limit]
