"""Real photographs that ship inside a package: scikit-image's sample images (``skimage/data``,
BSD-3-Clause for the package; each image's own licence is listed in ``skimage/data/README.txt``),
read by path so none of scikit-image's code is imported."""

import importlib.resources
from pathlib import Path

CAT = "chelsea.png"  # a cat, 451 × 300 RGB
ROCKET = "rocket.jpg"  # a launch, 640 × 427 RGB JPEG
COFFEE = "coffee.png"  # a cup of coffee, 600 × 400 RGB
CAMERA = "camera.png"  # a photographer, 512 × 512 greyscale


def photo(name: str) -> Path:
    path = Path(str(importlib.resources.files("skimage") / "data" / name))
    if not path.is_file():
        raise FileNotFoundError(f"scikit-image's sample {name} is missing (pip install scikit-image)")
    return path
