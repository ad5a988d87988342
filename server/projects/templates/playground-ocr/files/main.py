"""Read a line of text on the camera or in a photo: PaddleOCR's PP-OCRv4 text recogniser
(the market's Text reading package: see README.md). On the camera it reads the band across the middle of the frame
(drawn as a rect: hold the line there); a photo is read whole. Label 0 is the text, label 1 the
recogniser's mean confidence.

As PaddleOCR feeds it: the picture scaled to height 48 with its aspect kept (at most 320 wide,
padded on the right), BGR, ``(pixel / 255 - 0.5) / 0.5``. The output is a probability per
character class for every 8 columns; the best class of each, repeats merged and blanks (class
0) dropped, spells the text (CTC).
"""

import os

import MNN
import MNNCV
import numpy as np

F = MNN.expr
PACKAGE = os.path.join("market", "text-reading")
MODEL = os.path.join(PACKAGE, "rec.mnn")
CHARACTERS = os.path.join(PACKAGE, "ppocr_keys.txt")
INPUT, OUTPUT = "x", "softmax_11.tmp_0"
HEIGHT, WIDTH = 48, 320
BAND = 0.25  # of the frame's height, across its middle

kit = MNNCV.Kit()
work = kit.getEnvVars()["workPath"]
for needed in (MODEL, CHARACTERS):
    if not os.path.isfile(os.path.join(work, needed)):
        raise FileNotFoundError(f"{needed} is missing: install the market's Text reading "
                                "into this project (see README.md)")
net = MNN.nn.load_module_from_file(os.path.join(work, MODEL), [INPUT], [OUTPUT])
with open(os.path.join(work, CHARACTERS), encoding="utf-8") as lines:
    CLASSES = [""] + [line.rstrip("\n") for line in lines]  # class 0 is CTC's blank


def preprocess(rgb):
    """1×3×48×320: height 48 with the aspect kept (nearest pixel), padded with 0 on the right."""
    height, width = rgb.shape[:2]
    new_w = max(1, min(WIDTH, round(width * HEIGHT / height)))
    ys = np.minimum((np.arange(HEIGHT) * height / HEIGHT).astype(int), height - 1)
    xs = np.minimum((np.arange(new_w) * width / new_w).astype(int), width - 1)
    bgr = rgb[ys][:, xs, 2::-1].astype(np.float32) / 255.0
    data = np.zeros((3, HEIGHT, WIDTH), np.float32)
    data[:, :, :new_w] = ((bgr - 0.5) / 0.5).transpose(2, 0, 1)
    return data[None]


def read_text(rgb):
    image = F.const(preprocess(rgb), [1, 3, HEIGHT, WIDTH], F.NCHW)
    probabilities = np.array(net.forward([image])[0].read(), np.float32)
    probabilities = probabilities.reshape(-1, probabilities.shape[-1])
    best = probabilities.argmax(axis=1)
    text, confidences, previous = [], [], 0
    for step, index in enumerate(best):
        if index != 0 and index != previous and index < len(CLASSES):
            text.append(CLASSES[index])
            confidences.append(probabilities[step, index])
        previous = index
    return "".join(text), float(np.mean(confidences)) if confidences else 0.0


def show(rgb, band=None):
    text, confidence = read_text(rgb)
    kit.setLabel(0, text or "(no text)")
    kit.setLabel(1, f"confidence {confidence:.2f}")
    if band is not None:
        kit.drawRects([band], [text], "cyan", 2)


def on_frame(data, format, width, height, inangle, outangle):
    top, tall = round(height * (1 - BAND) / 2), max(1, round(height * BAND))
    show(np.asarray(data)[top:top + tall], [0, top, width, tall])


def on_photo(imageData, format, width, height):
    show(np.asarray(imageData))


kit.setCamera(on_frame)
kit.selectPhoto(on_photo)
