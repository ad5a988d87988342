"""Person segmentation: MediaPipe's selfie segmentation (general, 256×256) from the mediapipe
wheel."""

import numpy as np

from server.market.builtin.real import inputs
from server.market.builtin.real.algorithm import RealAlgorithm, Sample, Upstream
from server.market.builtin.real.cache import Pin

PIN = Pin("mediapipe", "0.10.14")
# Points labelled by eye in scikit-image's photos (x, y in the photo's pixels; 1 a person,
# 0 background). The cat is no person: the model's answer there shows what it does with a face
# that is not human.
POINTS = {
    "astronaut.png": [(225, 120, 1), (220, 50, 1), (100, 350, 1), (60, 420, 1),
                      (470, 60, 0), (420, 150, 0), (300, 40, 0)],
    "camera.png": [(223, 150, 1), (100, 300, 1), (400, 60, 0), (420, 450, 0)],
    "rocket.jpg": [(320, 60, 0), (120, 300, 0)],
    "coffee.png": [(300, 150, 0), (550, 350, 0)],
    "chelsea.png": [(150, 150, 0), (300, 200, 0)],
}


def _sample(name: str) -> Sample:
    points = np.array(POINTS[name], dtype=np.int32)
    expected = "points " + " ".join(str(label) for _, _, label in POINTS[name])
    return Sample(name.rsplit(".", 1)[0], {"image": inputs.photo(name), "points": points},
                  expected)


def samples() -> list[Sample]:
    return [_sample("astronaut.png"), _sample("camera.png"), _sample("rocket.jpg")]


def evaluation() -> list[Sample]:
    return [_sample(name) for name in POINTS]


ALGORITHM = RealAlgorithm(
    id="person-segmentation", name="Person segmentation", task="image-segmentation",
    summary="A photo → which pixels show a person (MediaPipe selfie segmentation, 256×256)",
    about="MediaPipe's selfie segmentation model (Google, Apache-2.0) as the `mediapipe` "
          "0.10.14 wheel on PyPI ships it "
          "(`mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite`), converted "
          "from TFLite to MNN directly. The photo is stretched to 256×256 with pixels in "
          "[0, 1]; the output is a person probability per pixel. It is made for people near "
          "the camera: other close-up subjects (a cat's face) are taken for a person too.",
    license="Apache-2.0", authors=["Google (MediaPipe)"],
    model=Upstream(PIN, "mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite"),
    licenses={"LICENSE": Upstream(PIN, "mediapipe-0.10.14.dist-info/LICENSE")},
    spec={
        "inputs": [{"name": "input_1", "shape": [1, 256, 256, 3], "kind": "image",
                    "layout": "NHWC", "color": "RGB", "resize": "stretch", "scale": 1 / 255,
                    "description": "pixels in [0, 1]"}],
        "outputs": [{"name": "activation_10", "shape": [1, 256, 256, 1], "kind": "mask",
                     "threshold": 0.5, "description": "the probability of a person per pixel"}],
    },
    demo="selfie", helpers=["imaging"], samples=samples, evaluation=evaluation,
    credits="scikit-image's sample photos: `astronaut.png` (NASA, public domain), `camera.png` "
            "(CC0, Lav Varshney), `rocket.jpg` (SpaceX, public domain); the points are labelled "
            "by eye.",
    eval_set="person or background at 17 points labelled by eye in 5 of scikit-image's photos "
             "(astronaut, camera, rocket, coffee, chelsea); a photo counts as right when every "
             "point of it is",
)
