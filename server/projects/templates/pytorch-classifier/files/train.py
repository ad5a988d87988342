"""Train a small CNN on scikit-learn's bundled 8x8 digits and export it to ONNX.

The dataset ships inside scikit-learn, so nothing is downloaded. Metrics go to stdout as
``MNNWB_METRIC {json}`` lines; ``model.onnx`` and ``model.pt`` go to ``$MNNWB_OUTPUT_DIR``.
"""

import argparse
import json
import os
import warnings

import numpy as np
import onnx
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from torch import nn


# How the workbench's tools feed the model (its spec): an 8x8 grey image, pixels 0..255 scaled
# to 0..1 as in training; the logits are the digits 0-9, as the folders of data/val/ name them.
SPEC = """format = 1

[[inputs]]
name = "input"
shape = [-1, 1, 8, 8]
default_shape = [1, 1, 8, 8]
kind = "image"
layout = "NCHW"
color = "GRAY"
resize = "stretch"
scale = 0.00392156862745098

[[outputs]]
name = "logits"
kind = "logits"
labels = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
"""


class DigitsCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(32 * 2 * 2, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.features(x), 1))


def load_data(seed: int) -> tuple[torch.Tensor, ...]:
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    x_train, x_val, y_train, y_val = train_test_split(
        images, digits.target, test_size=0.2, random_state=seed, stratify=digits.target
    )
    return (torch.from_numpy(x_train), torch.from_numpy(y_train).long(),
            torch.from_numpy(x_val), torch.from_numpy(y_val).long())


def metric(**values) -> None:
    print("MNNWB_METRIC " + json.dumps(values), flush=True)


def evaluate(model: nn.Module, images: torch.Tensor, labels: torch.Tensor) -> float:
    model.eval()
    with torch.no_grad():
        return float((model(images).argmax(1) == labels).float().mean())


def train(args: argparse.Namespace, model: nn.Module, data: tuple[torch.Tensor, ...]) -> None:
    x_train, y_train, x_val, y_val = data
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    step = 0
    for epoch in range(1, args.epochs + 1):
        model.train()
        order = torch.randperm(len(x_train))
        for start in range(0, len(order), args.batch):
            batch = order[start : start + args.batch]
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[batch]), y_train[batch])
            loss.backward()
            optimizer.step()
            step += 1
        metric(step=step, epoch=epoch, loss=loss.item(), acc=evaluate(model, x_val, y_val))


def export(model: nn.Module, out_dir: str) -> str:
    model.eval()
    path = os.path.join(out_dir, "model.onnx")
    # The TorchScript-based exporter needs nothing beyond torch and onnx (the newer one also
    # needs onnxscript); its deprecation notice is expected here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model, (torch.zeros(1, 1, 8, 8),), path, dynamo=False,
            input_names=["input"], output_names=["logits"],
            dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}}, opset_version=17,
        )
    onnx.checker.check_model(onnx.load(path))
    torch.save(model.state_dict(), os.path.join(out_dir, "model.pt"))
    with open(path + ".model.toml", "w", encoding="utf-8") as spec:
        spec.write(SPEC)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.005)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    out_dir = os.environ.get("MNNWB_OUTPUT_DIR", "outputs")
    os.makedirs(out_dir, exist_ok=True)
    model = DigitsCNN()
    train(args, model, load_data(args.seed))
    print(f"saved {export(model, out_dir)}")


if __name__ == "__main__":
    main()
