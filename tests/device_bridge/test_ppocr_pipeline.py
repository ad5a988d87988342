"""A real OCR pipeline: PaddleOCR's pretrained PP-OCRv4 detector, orientation classifier and
recogniser (tests/fakes/ppocr.py, from the rapidocr-onnxruntime wheel, converted to MNN here)
chained by ``pipeline.toml`` and run on text rendered with Pillow and on a photograph of a
printed page, here and on a real agent process."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from device_bridge.runtime import pipeline
from tests.device_bridge.harness import AgentProcess, HubServer
from tests.device_bridge.test_agent_runs import attach, exit_of
from tests.fakes import ppocr
from tests.fakes.photos import photo
from tests.plugin.tools import run_tool
from tests.waiting import wait_until

LINES = ["MNN Workbench 2026", "Pipelines on device"]
# scikit-image's page.png: a photo of a printed page (384 × 191 greyscale, lit unevenly, the
# lines slightly curved), read by a person.
PAGE = "page.png"
PAGE_LINES = [
    "Region-based segmentation",
    "Let us first determine markers of the coins and the",
    "background. These markers are pixels that we can label",
    "unambiguously as either object or background. Here,",
    "the markers are found at the two extreme parts of the",
    "histogram of grey values:",
    ">>> markers = np.zeros_like(coins)",
]
RENDERED = "rendered.png"
TURNED = "turned.png"
READ = "softmax_11.tmp_0"
ORIENTATION = "save_infer_model/scale_0.tmp_1"


def _convert(source: Path, target: Path) -> None:
    outcome = run_tool(
        "convert", {"model": str(source), "output": str(target)}, target.parent / f"run-{target.stem}", 300.0
    )
    assert outcome.status == "succeeded", outcome.error


def render(path: Path, lines: list[str], size: int = 32) -> Path:
    """Black text in Pillow's own font on white, one line per 60 pixels."""
    font = ImageFont.load_default(size=size)
    image = Image.new("RGB", (640, 60 + 60 * len(lines)), "white")
    draw = ImageDraw.Draw(image)
    for index, line in enumerate(lines):
        draw.text((30, 30 + 60 * index), line, fill="black", font=font)
    image.save(path)
    return path


def build_ppocr_pipeline(folder: Path) -> Path:
    """The OCR models converted into ``folder``, with the rendered text upright and turned; the
    session's one is the ``ppocr_pipeline`` fixture of tests/conftest.py."""
    path = ppocr.build(folder, _convert)
    render(folder / RENDERED, LINES)
    with Image.open(folder / RENDERED) as image:
        image.rotate(180).save(folder / TURNED)
    return path


def distance(a: str, b: str) -> int:
    """Levenshtein: the characters to insert, delete or change to turn ``a`` into ``b``."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def accuracy(read: list[str], truth: list[str]) -> float:
    """1 - character error rate over the lines joined, the line breaks counted."""
    expected = "\n".join(truth)
    return 1 - distance("\n".join(read), expected) / len(expected)


def texts(result: dict) -> list[str]:
    stages = {s["id"]: s for s in result["stages"]}
    return [item["outputs"][READ]["text"] for item in stages["read"]["items"]]


def test_the_pretrained_chain_reads_rendered_text(ppocr_pipeline: Path) -> None:
    runner = pipeline.Runner(pipeline.load(ppocr_pipeline))
    result = runner.run(ppocr_pipeline.parent / RENDERED)
    stages = {s["id"]: s for s in result["stages"]}
    assert list(stages) == ["image", "detect", "regions", "crops", "orientation", "upright", "read"]
    boxes = stages["regions"]["items"][0]["boxes"]
    assert len(boxes) == 2, boxes  # one per line, top line first
    assert boxes[0]["box"][3] < boxes[1]["box"][1] + 10
    labels = [o["outputs"][ORIENTATION]["top"][0]["label"] for o in stages["orientation"]["items"]]
    assert labels == ["0", "0"]
    assert [u["rotated"] for u in stages["upright"]["items"]] == [0, 0]
    assert texts(result) == LINES  # exactly, case and spaces included
    # The stages' times add up to the whole, within 10 %.
    total = sum(s["ms"] for s in result["stages"])
    assert 0.9 * result["ms"] <= total <= result["ms"]
    assert sum(t["end_ms"] - t["start_ms"] for t in result["timeline"]) >= 0.9 * result["ms"]


def test_upside_down_text_is_turned_by_the_classifier_and_read(ppocr_pipeline: Path) -> None:
    runner = pipeline.Runner(pipeline.load(ppocr_pipeline))
    result = runner.run(ppocr_pipeline.parent / TURNED)
    stages = {s["id"]: s for s in result["stages"]}
    top = [o["outputs"][ORIENTATION]["top"][0] for o in stages["orientation"]["items"]]
    assert [t["label"] for t in top] == ["180", "180"] and all(t["score"] >= 0.9 for t in top)
    assert [u["rotated"] for u in stages["upright"]["items"]] == [180, 180]
    assert texts(result) == LINES[::-1]  # the turned photo has the second line on top


def test_the_same_pipeline_on_a_device_answers_as_here(
    hub_server: HubServer, agent: AgentProcess, ppocr_pipeline: Path, tmp_path: Path
) -> None:
    project = tmp_path / "ocr"
    project.mkdir()
    for path in ppocr_pipeline.parent.iterdir():
        if path.is_file() and path.suffix != ".onnx":
            shutil.copy(path, project / path.name)
    sid = attach(hub_server, "p-ocr")
    assert hub_server.call(deploy(hub_server.hub, "p-ocr", sid, project)).failed == []
    argv = ["-m", "device_bridge.runtime.pipeline_cli", "run", "pipeline.toml", "--input", RENDERED,
            "--input", TURNED, "--json"]
    hub_server.call(hub_server.hub.send("p-ocr", p.RunStart(sid=sid, argv=argv)))
    assert exit_of(hub_server, sid, timeout=180)["code"] == 0, hub_server.recorder.output(sid)

    def stdout() -> str:
        return "".join(
            e.data["text"]
            for e in hub_server.recorder.select(
                lambda e: e.type == "log" and e.data["sid"] == sid and e.data["stream"] == "stdout"
            )
        )

    wait_until(lambda: stdout().count("}\n") >= 2, what="the pipeline's JSON lines from the device")
    there = [json.loads(line) for line in stdout().splitlines() if line.strip()]
    assert len(there) == 2, hub_server.recorder.output(sid)
    runner = pipeline.Runner(pipeline.load(project / "pipeline.toml"))
    for name, answer in zip((RENDERED, TURNED), there, strict=True):
        here = runner.run(project / name)
        assert [s["id"] for s in answer["stages"]] == [s["id"] for s in here["stages"]]
        assert [s["items"] for s in answer["stages"]] == [s["items"] for s in here["stages"]]
    assert texts(there[0]) == LINES and texts(there[1]) == LINES[::-1]


def test_a_photo_of_a_printed_page_is_read_to_a_measured_accuracy(ppocr_pipeline: Path) -> None:
    """Measured here: 0.619 with PaddleOCR's own sizes, 0.813 with the detector's input scaled up
    to 736 (rapidocr's); the orientation classifier turns two (one) of the seven upright lines
    by 180° with scores over its 0.9 threshold, and those come out as a few stray letters."""
    result = pipeline.Runner(pipeline.load(ppocr_pipeline)).run(photo(PAGE))
    read = texts(result)
    assert len(read) == len(PAGE_LINES), read  # one region per line, in reading order
    assert read[0] == "Region-based segmentation" and read[1] == PAGE_LINES[1], read
    assert read[5] == "histogram of grey values:", read
    assert accuracy(read, PAGE_LINES) >= 0.6, read
    scaled = pipeline.Runner(pipeline.load(ppocr_pipeline.parent / ppocr.SMALL_PHOTOS)).run(photo(PAGE))
    read = texts(scaled)
    assert len(read) == len(PAGE_LINES), read
    assert read[1:4] == [
        PAGE_LINES[1],
        "background.These markers are pixels that we can label",  # one space lost
        PAGE_LINES[3],
    ], read
    assert accuracy(read, PAGE_LINES) >= 0.8, read


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ("[[stages]]\nid = 'a'\nmodel = 'x.mnn'\nfit = 'crop'", "stages[0].fit", "not one of"),
        ("[[stages]]\nid = 'a'\nmodel = 'x.mnn'\nmax_side = 960", "stages[0].max_side", 'fit = "aspect"'),
        ("[[stages]]\nid = 'a'\nmodel = 'x.mnn'\nfit = 'aspect'\nmultiple = 0", "stages[0].multiple", "size"),
        ("[[stages]]\nid = 'a'\nstep = 'map_to_boxes'\nquads = 1", "stages[0].quads", "wrong type"),
        ("[[stages]]\nid = 'a'\nstep = 'map_to_boxes'\nunclip = true", "stages[0].unclip", "wrong type"),
    ],
)
def test_the_new_fields_are_checked_by_name(text: str, where: str, reason: str, tmp_path: Path) -> None:
    with pytest.raises(pipeline.PipelineError) as raised:
        pipeline.parse(text, tmp_path)
    assert raised.value.where == where and reason in raised.value.reason, raised.value


def test_aspect_fit_keeps_the_aspect_as_paddleocr_does() -> None:
    from device_bridge.runtime import preprocess
    from device_bridge.runtime import spec as model_spec

    specs = {name: model_spec.from_dict(ppocr.SPECS[name]).inputs[0] for name in ppocr.SPECS}
    pixels = np.full((50, 100, 3), 255, dtype=np.uint8)
    tensor, frame = preprocess.aspect_tensor(specs["det"], [1, 3, 640, 640], pixels, 32, 960)
    assert tensor.shape == (1, 3, 64, 96) and (frame.scale_x, frame.scale_y) == (0.96, 1.28)
    tensor, _ = preprocess.aspect_tensor(specs["det"], [1, 3, 640, 640], pixels, 32, 960, 736)
    assert tensor.shape == (1, 3, 480, 960)  # scaled up to 736 on the short side, capped by 960
    # Height 48; a short line padded with zeros (after normalising) to the default width 320.
    tensor, frame = preprocess.aspect_tensor(specs["rec"], [1, 3, 48, 320], pixels[:48, :96], 8)
    assert tensor.shape == (1, 3, 48, 320) and frame.scale_x == 1.0
    assert np.all(tensor[..., :96] == 1.0) and np.all(tensor[..., 96:] == 0.0)
    tensor, _ = preprocess.aspect_tensor(specs["rec"], [1, 3, 48, 320], np.zeros((24, 203, 3), np.uint8), 8)
    assert tensor.shape == (1, 3, 48, 408)  # 406 wide, padded up to a multiple of 8
    tensor, _ = preprocess.aspect_tensor(specs["cls"], [1, 3, 48, 192], np.zeros((10, 1000, 3), np.uint8))
    assert tensor.shape == (1, 3, 48, 192)  # a fixed width: squeezed into it


def test_a_tilted_line_gets_a_tilted_box_and_is_cut_out_upright() -> None:
    from device_bridge.runtime import steps

    image = Image.new("L", (120, 60), 0)
    draw = ImageDraw.Draw(image)
    angle = np.radians(10)
    along, across = np.array([np.cos(angle), np.sin(angle)]), np.array([-np.sin(angle), np.cos(angle)])
    centre = np.array([60.0, 30.0])
    corners = [centre + along * a + across * b for a, b in ((-40, -4), (40, -4), (40, 4), (-40, 4))]
    draw.polygon([tuple(c) for c in corners], fill=255)
    score = np.asarray(image, dtype=np.float32)[None, None] / 255
    [(quad, mean)] = steps.map_to_quads(score, 0.5, 10)
    top_left, top_right, _, bottom_left = np.asarray(quad)
    assert abs(np.degrees(np.arctan2(*(top_right - top_left)[::-1])) - 10) < 1.5
    assert 78 <= np.linalg.norm(top_right - top_left) <= 84
    assert 7 <= np.linalg.norm(bottom_left - top_left) <= 11
    assert mean > 0.9
    [(_, y1, _, y2, _)] = steps.map_to_boxes(score, 0.5, 10)
    assert y2 - y1 > 20  # the upright box of the same line takes in more than twice its height
    picture = steps.Picture(np.repeat(np.asarray(image)[:, :, None], 3, axis=2))
    cut = steps.crop_quad(picture, quad, 0)
    assert 7 <= cut.pixels.shape[0] <= 11 and 78 <= cut.pixels.shape[1] <= 84
    assert cut.pixels[2:-2, 2:-2].mean() > 200  # all line, nothing of the dark ground around it


def test_the_converted_models_answer_as_the_onnx_files_do(ppocr_pipeline: Path) -> None:
    """MNN's conversion of the three against onnxruntime on the wheel's own files, one input
    each at a pipeline's sizes: measured here, at most 1e-7 (det, cls) and 6e-6 (rec) apart."""
    import onnxruntime as ort

    from device_bridge.runtime.engine import Session

    rng = np.random.default_rng(0)
    for name, shape in (("det", (1, 3, 96, 320)), ("cls", (1, 3, 48, 192)), ("rec", (1, 3, 48, 400))):
        tensor = rng.uniform(-1, 1, shape).astype(np.float32)
        onnx = ort.InferenceSession(str(ppocr.source(name)), providers=["CPUExecutionProvider"])
        expected = onnx.run(None, {"x": tensor})[0]
        [got] = Session(ppocr_pipeline.parent / f"{name}.mnn").run({"x": tensor}).values()
        assert got.shape == expected.shape, name
        assert float(np.abs(got - expected).max()) < 1e-4, name
        if name != "det":
            assert (got.argmax(-1) == expected.argmax(-1)).all(), name
