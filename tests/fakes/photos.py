"""Real photographs that ship inside a package: the sample photos scikit-image ships in
``skimage/data/`` (BSD-3-Clause for the package; each image's own licence is listed in
``skimage/data/README.txt``), read by path from the installed package (never downloaded, none
of scikit-image's code imported); for calibration folders shrunk to the model's input size and
written as PNG or JPEG."""

from importlib import resources
from pathlib import Path

from PIL import Image

CAT = "chelsea.png"  # a cat, 451 × 300 RGB
ROCKET = "rocket.jpg"  # a launch, 640 × 427 RGB JPEG
COFFEE = "coffee.png"  # a cup of coffee, 600 × 400 RGB
CAMERA = "camera.png"  # a photographer, 512 × 512 greyscale
PHOTOS = ("astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png",
          "retina.jpg", "hubble_deep_field.jpg", "horse.png")


def photo(name: str) -> Path:
    path = Path(str(resources.files("skimage") / "data" / name))
    assert path.is_file(), f"scikit-image's sample photo {name} is missing"
    return path


def calibration_folder(folder: Path, size: int, names: tuple[str, ...] = PHOTOS[:6]) -> Path:
    """One RGB image per photo, ``size``×``size``, JPEG for the .jpg photos and PNG for the rest."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        with Image.open(photo(name)) as image:
            small = image.convert("RGB").resize((size, size), Image.Resampling.BILINEAR)
        if name.endswith(".jpg"):
            small.save(folder / name, quality=92)
        else:
            small.save(folder / f"{name.rsplit('.', 1)[0]}.png")
    return folder


def truncated(source: Path, target: Path, keep: float = 0.5) -> Path:
    data = source.read_bytes()
    target.write_bytes(data[: int(len(data) * keep)])
    return target

