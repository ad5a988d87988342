"""Sample inputs from files that ship inside installed packages (nothing downloaded here).

scikit-image's photos (``skimage/data/``; each one's license in its ``README.txt``), text
rendered with the font Pillow embeds, and speech from the pinned pysptk sdist.
"""

import io
import wave
from importlib import resources
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from server.market.builtin.real.cache import Pin, read_member

PYSPTK = Pin("pysptk", "1.0.1", sdist=True)
SPEECH = "pysptk/example_audio_data/arctic_a0007.wav"
SPEECH_LICENSE = "pysptk/example_audio_data/COPYING"

TEXT = (
    "The market lists ready algorithms from every source. Each package holds a converted model,",
    "its source model, a demo that needs only numpy and MNN, sample inputs and the figures",
    "measured when it was built: the size of the model, its median latency on the machine that",
    "built it and, where a labelled set can be made honestly, its accuracy on that set. A demo",
    "runs unchanged on this machine and on a device agent. Installing a package copies its files",
    "into a project, checked against the sha256 of each one in its manifest, so a changed byte",
    "is refused and nothing is written. Packages are plain files in plain folders, nothing else.",
)


def photo(name: str) -> np.ndarray:
    """One of scikit-image's sample photos as H×W×3 RGB uint8."""
    path = Path(str(resources.files("skimage") / "data" / name))
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


def rendered_page(lines: tuple[str, ...] = TEXT, size: int = 18) -> np.ndarray:
    """Black text on a white page, as H×W×3 RGB uint8."""
    face = ImageFont.load_default(size=size)
    width = max(int(face.getlength(line)) for line in lines) + 80
    page = Image.new("RGB", (width, 60 + len(lines) * (size + 12)), "white")
    draw = ImageDraw.Draw(page)
    for index, line in enumerate(lines):
        draw.text((40, 30 + index * (size + 12)), line, fill="black", font=face)
    return np.asarray(page)


def turned(image: np.ndarray, clockwise: int) -> np.ndarray:
    """The image turned by a multiple of 90 degrees, clockwise."""
    return np.ascontiguousarray(np.rot90(image, k=-(clockwise // 90)))


def speech() -> tuple[np.ndarray, int]:
    """CMU ARCTIC's ``arctic_a0007`` (one speaker, 16 kHz mono) as float32 in [-1, 1]."""
    with wave.open(io.BytesIO(read_member(PYSPTK, SPEECH))) as opened:
        rate, frames = opened.getframerate(), opened.readframes(opened.getnframes())
    return np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32768.0, rate
