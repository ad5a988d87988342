"""Train a two-layer MLP with MNN's own training API and save it as an .mnn model.

The data is generated: points in the plane, labelled by the quadrant sign (x * y > 0), which a
linear model cannot learn but a small MLP can. Metrics go to stdout as ``MNNWB_METRIC {json}``
lines and the model to ``$MNNWB_OUTPUT_DIR/model.mnn``.
"""

import argparse
import json
import os

import MNN
import numpy as np

nn = MNN.nn
F = MNN.expr
# Gradients are only recorded in lazy evaluation mode; without it optimizer steps do nothing.
F.lazy_eval(True)


class MLP(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.linear(2, hidden)
        self.fc2 = nn.linear(hidden, 2)

    def forward(self, x):
        return F.softmax(self.fc2(F.relu(self.fc1(x))), 1)


def make_data(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    points = rng.uniform(-1.0, 1.0, size=(count, 2)).astype(np.float32)
    labels = (points[:, 0] * points[:, 1] > 0).astype(np.int32)
    return points, labels


def metric(**values) -> None:
    print("MNNWB_METRIC " + json.dumps(values), flush=True)


def accuracy(model: MLP, points: np.ndarray, labels: np.ndarray) -> float:
    probs = model.forward(F.const(points, list(points.shape), F.NCHW))
    return float((np.argmax(probs.read(), 1) == labels).mean())


def train(args: argparse.Namespace, model: MLP) -> None:
    points, labels = make_data(args.samples, seed=0)
    val_points, val_labels = make_data(256, seed=1)
    optimizer = MNN.optim.ADAM(model, args.lr)
    for step in range(1, args.steps + 1):
        model.train(True)
        batch = np.random.default_rng(step).choice(args.samples, args.batch, replace=False)
        probs = model.forward(F.const(points[batch], [args.batch, 2], F.NCHW))
        target = F.one_hot(F.const(labels[batch], [args.batch], F.NCHW, F.int), 2, 1.0, 0.0)
        loss = nn.loss.cross_entropy(probs, target)
        optimizer.step(loss)
        if step % args.log_every == 0 or step == args.steps:
            model.train(False)
            metric(step=step, loss=float(loss.read()), acc=accuracy(model, val_points, val_labels))


def save(model: MLP, path: str) -> None:
    model.train(False)
    x = F.placeholder([1, 2], F.NCHW)
    x.name = "input"
    probs = model.forward(x)
    probs.name = "probs"
    F.save([probs], path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--samples", type=int, default=2048)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--log-every", type=int, default=20)
    args = parser.parse_args()
    out_dir = os.environ.get("MNNWB_OUTPUT_DIR", "outputs")
    os.makedirs(out_dir, exist_ok=True)
    model = MLP(args.hidden)
    train(args, model)
    path = os.path.join(out_dir, "model.mnn")
    save(model, path)
    print(f"saved {path}")


if __name__ == "__main__":
    main()
