"""The built-in algorithms: data that ships in installed packages, a held-out split, training.

Each ``make_*`` returns a ``Trained``: the ONNX graph, what the manifest says about its inputs and
outputs, the held-out split (raw, before the manifest's pre-processing) that the build measures
the converted model on, and a few held-out samples the package ships for its demo.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import onnx
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

from server.market.builtin import graphs, signals
from server.market.package import InputSpec, OutputSpec

SEED = 0
SAMPLES = 10


@dataclass
class Trained:
    id: str
    name: str
    task: str
    summary: str
    license: str
    about: str
    model: onnx.ModelProto
    inputs: list[InputSpec]
    outputs: list[OutputSpec]
    test_x: np.ndarray
    test_y: list[str]
    eval_set: str
    extra_metrics: dict[str, float] = field(default_factory=dict)


def _mlp_layers(mlp: MLPClassifier) -> list[tuple[np.ndarray, np.ndarray]]:
    return list(zip(mlp.coefs_, mlp.intercepts_, strict=True))


def make_digits() -> Trained:
    data = load_digits()
    x = data.images.astype(np.float32)[:, None, :, :]
    x_train, x_test, y_train, y_test = train_test_split(
        x, data.target, test_size=0.2, random_state=SEED, stratify=data.target)
    mlp = MLPClassifier(hidden_layer_sizes=(32,), solver="lbfgs", max_iter=200,
                        random_state=SEED)
    mlp.fit(x_train.reshape(len(x_train), -1) / 16.0, y_train)
    labels = [str(d) for d in range(10)]
    return Trained(
        id="digits", name="Handwritten digits", task="image-classification",
        summary="8×8 grey handwritten digits, 10 classes (a 64-32-10 MLP)",
        license="BSD-3-Clause",
        about="Trained on scikit-learn's `load_digits` (1,797 images of 8×8 pixels, values "
              "0–16) with a one-hidden-layer MLP.",
        model=graphs.classifier("digits", [1, 1, 8, 8], _mlp_layers(mlp), 10),
        inputs=[InputSpec(name="input", shape=[1, 1, 8, 8], layout="NCHW", size=[8, 8],
                          mean=[0.0], std=[16.0],
                          description="grey pixels 0 (white) to 16 (black)")],
        outputs=[OutputSpec(name="probabilities", shape=[1, 10], labels=labels)],
        test_x=x_test, test_y=[labels[i] for i in y_test],
        eval_set=f"scikit-learn digits, 20% held out, {len(x_test)} samples",
    )


def make_breast_cancer() -> Trained:
    data = load_breast_cancer()
    x = data.data.astype(np.float32)
    x_train, x_test, y_train, y_test = train_test_split(
        x, data.target, test_size=0.2, random_state=SEED, stratify=data.target)
    mean, std = x_train.mean(axis=0), x_train.std(axis=0)
    logistic = LogisticRegression(max_iter=1000).fit((x_train - mean) / std, y_train)
    # Two logits ±z/2 make softmax give (1 - sigmoid(z), sigmoid(z)).
    weight = np.concatenate([-logistic.coef_.T, logistic.coef_.T], axis=1) / 2.0
    bias = np.array([-logistic.intercept_[0], logistic.intercept_[0]]) / 2.0
    labels = [str(name) for name in data.target_names]
    return Trained(
        id="breast-cancer", name="Breast tumour classifier", task="tabular-classification",
        summary="30 cell-nucleus measurements → malignant or benign (logistic regression)",
        license="BSD-3-Clause",
        about="Trained on scikit-learn's `load_breast_cancer` (the Wisconsin diagnostic data "
              "set, 569 rows of 30 features) with a standardised logistic regression.",
        model=graphs.classifier("breast_cancer", [1, 30], [(weight, bias)], 2),
        inputs=[InputSpec(name="input", shape=[1, 30], layout="NC",
                          mean=[float(v) for v in mean], std=[float(v) for v in std],
                          description="the 30 features in the order of "
                                      "sklearn.datasets.load_breast_cancer().feature_names")],
        outputs=[OutputSpec(name="probabilities", shape=[1, 2], labels=labels)],
        test_x=x_test, test_y=[labels[i] for i in y_test],
        eval_set=f"scikit-learn breast cancer, 20% held out, {len(x_test)} samples",
    )


def make_activity() -> Trained:
    x, y = signals.activity_windows(1500, np.random.default_rng(SEED))
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.2, random_state=SEED, stratify=y)
    # A fixed budget of epochs keeps the build short; the held-out figure is what it reached.
    mlp = MLPClassifier(hidden_layer_sizes=(32,), learning_rate_init=0.01, max_iter=50,
                        random_state=SEED)
    mlp.fit(x_train.reshape(len(x_train), -1), y_train)
    labels = list(signals.ACTIVITIES)
    return Trained(
        id="activity", name="Activity from an accelerometer", task="signal-classification",
        summary="2 s of 3-axis acceleration at 32 Hz → still, walking or running (MLP)",
        license="Apache-2.0",
        about="Trained on generated accelerometer windows (gravity, gait frequency and "
              "amplitude per activity, random phase and orientation noise; "
              "`server/market/builtin/signals.py`) with a one-hidden-layer MLP.",
        model=graphs.classifier("activity", [1, 3, signals.WINDOW],
                                _mlp_layers(mlp), len(labels)),
        inputs=[InputSpec(name="input", shape=[1, 3, signals.WINDOW], layout="NCW",
                          description="acceleration in g, axes x, y, z, 32 samples a second")],
        outputs=[OutputSpec(name="probabilities", shape=[1, len(labels)], labels=labels)],
        test_x=x_test, test_y=[labels[i] for i in y_test],
        eval_set=f"generated accelerometer windows, 20% held out, {len(x_test)} samples",
    )


def make_vibration_anomaly() -> Trained:
    rng = np.random.default_rng(SEED)
    normal = signals.vibration_windows(1200, rng)
    train, held_normal = normal[:900], normal[900:]
    mean = train.mean(axis=0)
    _, _, vt = np.linalg.svd(train - mean, full_matrices=False)
    components = vt[:signals.COMPONENTS]
    residual = (train - mean) - (train - mean) @ components.T @ components
    threshold = float(np.quantile((residual ** 2).mean(axis=1), 0.995))
    faulty = signals.faulty_windows(len(held_normal), rng)
    test_x = np.concatenate([held_normal, faulty])
    test_y = ["normal"] * len(held_normal) + ["anomaly"] * len(faulty)
    return Trained(
        id="vibration-anomaly", name="Vibration anomaly detector", task="anomaly-detection",
        summary="64-sample vibration windows → reconstruction error; above the threshold is "
                "an anomaly (PCA autoencoder)",
        license="Apache-2.0",
        about="Fitted on generated normal vibration (a shaft frequency and its harmonic with "
              "noise; `server/market/builtin/signals.py`) as a linear autoencoder of "
              f"{signals.COMPONENTS} principal components. The threshold is the 99.5th "
              "percentile of the training windows' error. Faults in the evaluation set: "
              "impacts, a bearing tone and a loose (clipped) mount.",
        model=graphs.reconstruction_error("vibration_anomaly", mean, components),
        inputs=[InputSpec(name="input", shape=[1, signals.WINDOW], layout="NC",
                          description="one window of acceleration, in g")],
        outputs=[OutputSpec(name="score", shape=[1, 1], threshold=threshold,
                            description="mean squared reconstruction error; above "
                                        "`threshold` is an anomaly")],
        test_x=test_x.astype(np.float32), test_y=test_y,
        eval_set=f"generated vibration, {len(held_normal)} held-out normal and "
                 f"{len(faulty)} faulty windows",
    )


ALGORITHMS: list[Callable[[], Trained]] = [
    make_digits, make_breast_cancer, make_activity, make_vibration_anomaly,
]
