"""Classify images with an MNN model: decode → resize → normalise → infer → top-k.

Usage: ``python app.py [IMAGE.npy ...]`` (uint8 arrays, H x W x 3, RGB). Without arguments it
classifies generated sample images whose answers are known and reports the accuracy. The model
is ``model.mnn`` next to this file when present, otherwise the demo model from ``model.py``,
built into ``$MNNWB_OUTPUT_DIR``. Per-image latency and the results go to stdout as
``MNNWB_METRIC {json}`` lines and to ``$MNNWB_OUTPUT_DIR/predictions.json``.
"""

import argparse
import json
import os
import time

import MNN
import model as demo_model
import numpy as np

F = MNN.expr
HERE = os.path.dirname(os.path.abspath(__file__))
MEAN = np.array([0.5, 0.5, 0.5], dtype=np.float32)
STD = np.array([0.5, 0.5, 0.5], dtype=np.float32)


def metric(**values) -> None:
    print("MNNWB_METRIC " + json.dumps(values), flush=True)


def preprocess(image: np.ndarray, size: int) -> np.ndarray:
    """uint8 HWC RGB → float32 NCHW, resized (nearest) and normalised."""
    rows = np.arange(size) * image.shape[0] // size
    cols = np.arange(size) * image.shape[1] // size
    resized = image[rows][:, cols].astype(np.float32) / 255.0
    return ((resized - MEAN) / STD).transpose(2, 0, 1)[None].copy()


def postprocess(probs: np.ndarray, labels: list[str], top_k: int) -> list[dict]:
    order = np.argsort(-probs)[:top_k]
    return [{"label": labels[i], "score": round(float(probs[i]), 6)} for i in order]


def sample_images() -> list[tuple[str, np.ndarray]]:
    """Noisy images, each dominated by one channel, named after it."""
    rng = np.random.default_rng(0)
    samples = []
    for channel, name in enumerate(("red", "green", "blue")):
        image = rng.integers(0, 80, size=(48, 64, 3), dtype=np.uint8)
        image[..., channel] = rng.integers(180, 256, size=(48, 64), dtype=np.uint8)
        samples.append((name, image))
    return samples


def load_model(out_dir: str):
    path = os.path.join(HERE, "model.mnn")
    if not os.path.exists(path):
        path = os.path.join(out_dir, "model.mnn")
        demo_model.build(path)
    config = {"backend": "CPU", "numThread": 1}
    runtime = MNN.nn.create_runtime_manager((config,))
    return MNN.nn.load_module_from_file(path, ["image"], ["probs"], runtime_manager=runtime)


def classify(net, image: np.ndarray, labels: list[str], top_k: int) -> tuple[list[dict], float]:
    data = preprocess(image, demo_model.INPUT_SIZE)
    start = time.perf_counter()
    probs = np.array(net.forward(F.const(data, list(data.shape), F.NCHW)).read())[0]
    elapsed_ms = (time.perf_counter() - start) * 1000.0
    return postprocess(probs, labels, top_k), elapsed_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("images", nargs="*", help="uint8 H x W x 3 RGB arrays saved with numpy")
    parser.add_argument("--top-k", type=int, default=2)
    args = parser.parse_args()
    out_dir = os.environ.get("MNNWB_OUTPUT_DIR", "outputs")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(HERE, "labels.txt")) as handle:
        labels = [line.strip() for line in handle if line.strip()]
    inputs = [(None, np.load(p)) for p in args.images] if args.images else sample_images()
    net = load_model(out_dir)
    results, correct = [], 0
    for step, (expected, image) in enumerate(inputs, start=1):
        top, latency_ms = classify(net, image, labels, args.top_k)
        correct += top[0]["label"] == expected
        metric(step=step, latency_ms=round(latency_ms, 3), score=top[0]["score"])
        print(f"image {step}: {top[0]['label']} ({top[0]['score']:.3f})")
        results.append({"expected": expected, "top": top, "latency_ms": latency_ms})
    if not args.images:
        metric(step=len(inputs), acc=correct / len(inputs))
    with open(os.path.join(out_dir, "predictions.json"), "w") as handle:
        json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()
