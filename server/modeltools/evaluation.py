"""What evaluate needs of each model before it runs, and the metrics it computes (no MNN here:
the server checks a request with ``plan`` before any worker starts, and the worker plans again
on the files it opens; docs/datasets.md).

A model is evaluated through its spec (``<model>.model.toml``): one input, whose kind must be
what the dataset's samples are (an image dataset needs ``kind = "image"`` and how to
preprocess), at the spec's default shape or the request's ``input_shapes`` (a dynamic dim is
never guessed: ``shapes``), batch 1; and an output of the task's kind (``logits`` or
``probabilities`` for classification, ``boxes`` for detection). Nothing is fed that the spec
does not declare.
"""

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from device_bridge.runtime import spec as model_spec
from device_bridge.runtime.spec import InputSpec, ModelSpec, OutputSpec
from server.modeltools import shapes
from server.modeltools.errors import ToolFailed

RUNTIMES = {".onnx": "onnxruntime", ".mnn": "mnn", ".tflite": "tflite"}
TFLITE_MODULES = ("ai_edge_litert.interpreter", "tflite_runtime.interpreter", "tensorflow")
METRICS = {"accuracy": "classification", "map50": "detection"}
OUTPUT_KINDS = {"classification": ("logits", "probabilities"), "detection": ("boxes",)}
IOU = 0.5


@dataclass
class Plan:
    """One model as evaluate runs it."""

    path: Path
    runtime: str  # onnxruntime | mnn | tflite
    spec: ModelSpec
    input: InputSpec
    output: OutputSpec
    shape: list[int] | None  # None: a .tflite's, read from its interpreter
    from_spec: bool  # the shape is the spec's default_shape
    labels: list[str] | None

    def key(self) -> tuple[Any, ...]:
        """Models with equal keys are fed the very same tensor of a sample."""
        own = self.input
        return (own.kind, own.layout, own.color, own.resize, own.scale, tuple(own.mean or ()),
                tuple(own.std or ()), own.dtype, own.sample_rate, tuple(self.shape or ()))


def tflite_module() -> str | None:
    """The TFLite interpreter this Python has, if any."""
    for name in TFLITE_MODULES:
        try:
            if importlib.util.find_spec(name.split(".")[0]) is not None:
                return name
        except (ImportError, ValueError):
            continue
    return None


def metric_kind(metric: str | None, task: str) -> str:
    """``accuracy``, ``map50`` or ``script`` for the request's metric on a dataset of ``task``."""
    if metric is None:
        return "accuracy" if task == "classification" else "map50"
    if metric.lower().endswith(".py"):
        return "script"
    if metric not in METRICS:
        raise ToolFailed(f"metric {metric!r} is not one of {', '.join(METRICS)} or a .py metric script",
                         "bad_metric")
    if METRICS[metric] != task:
        raise ToolFailed(f"metric {metric} is for {METRICS[metric]}; this dataset is for {task}",
                         "bad_metric")
    return metric


def _spec(path: Path) -> ModelSpec:
    try:
        found = model_spec.load(path)
    except model_spec.SpecError as exc:
        raise ToolFailed(f"{path.name}: model spec: {exc}", "bad_model_spec", where=exc.where) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ToolFailed(f"{path.name}: model spec: cannot be read ({exc})", "bad_model_spec") from None
    if found is None:
        raise ToolFailed(
            f"{path.name} has no spec: evaluate feeds a model as its spec says; declare its input "
            f"(kind, layout, color, resize, scale, mean, std) and its output (kind logits with labels, "
            f"or boxes) in {model_spec.sidecar(path).name} (the model's Spec card)",
            "model_spec_required", model=path.name)
    return found


def _what_to_declare(input_kind: str) -> str:
    if input_kind == "image":
        return 'kind = "image" with its layout, color, resize, scale, mean and std'
    if input_kind == "audio":
        return 'kind = "audio" with its sample_rate'
    return 'kind = "tensor"'


def _labels(path: Path, output: OutputSpec) -> list[str] | None:
    try:
        if output.labels:
            return list(output.labels)
        return model_spec.read_list(path, output.labels_file) if output.labels_file else None
    except (OSError, UnicodeDecodeError, model_spec.SpecError) as exc:
        raise ToolFailed(f"{path.name}: output {output.name!r}: its labels file cannot be read ({exc})",
                         "bad_model_spec") from None


def _shape(path: Path, own: InputSpec, given: shapes.Shapes | None,
           declared: list[shapes.Declared] | None) -> tuple[list[int] | None, bool]:
    if declared is None:
        return None, False
    if len(declared) != 1:
        raise ToolFailed(f"{path.name} has {len(declared)} inputs ({', '.join(d.name for d in declared)}); "
                         "evaluate feeds one input per sample", "too_many_inputs", model=path.name)
    found = declared[0]
    wanted = dict(given or {})
    from_spec = False
    if found.name not in wanted and found.dynamic and own.run_shape() is not None:
        wanted[found.name] = own.run_shape() or []
        from_spec = True
    try:
        shape = shapes.resolve([found], {k: v for k, v in wanted.items() if k == found.name})[found.name]
    except shapes.ShapeError as exc:
        raise ToolFailed(f"{path.name}: {exc.detail}", exc.code, model=path.name, **exc.where) from None
    if own.layout.startswith("N") and shape and shape[0] != 1:
        raise ToolFailed(f"{path.name}: input {found.name!r} runs at batch {shape[0]} ({shape}); evaluate "
                         "runs one sample at a time: give batch 1 in input_shapes", "bad_tool_args",
                         model=path.name)
    return shape, from_spec


def plan(path: Path, task: str, input_kind: str, metric: str, given: shapes.Shapes | None,
         declared: list[shapes.Declared] | None, spec_of: Path | None = None) -> Plan:
    """How ``path`` is evaluated on a dataset of ``task`` whose samples are ``input_kind``;
    ``declared`` are its inputs as its file declares them (None: not known before it loads);
    ``spec_of``: the model whose spec to use (quantize's int8 model, before it has its own).
    Raises ``ToolFailed`` naming what to declare."""
    runtime = RUNTIMES.get(path.suffix.lower())
    if runtime is None:
        raise ToolFailed(f"{path.name}: evaluate runs .onnx (ONNX Runtime), .tflite (a TFLite interpreter) "
                         "and .mnn models", "bad_model_file")
    if runtime == "tflite" and tflite_module() is None:
        raise ToolFailed(f"{path.name}: no TFLite interpreter is installed here (ai-edge-litert, "
                         "tflite-runtime or tensorflow): convert it and evaluate the .mnn",
                         "runtime_unavailable", model=path.name)
    own_spec = _spec(spec_of or path)
    names = [d.name for d in declared] if declared else [i.name for i in own_spec.inputs]
    if len(names) != 1:
        raise ToolFailed(f"{path.name} has {len(names)} inputs ({', '.join(names)}); evaluate feeds one "
                         "input per sample", "too_many_inputs", model=path.name)
    own = own_spec.input(names[0])
    if own is None:
        raise ToolFailed(f"{path.name}: its spec does not declare input {names[0]!r}: declare it with "
                         f"{_what_to_declare(input_kind)}", "model_spec_required", model=path.name)
    if own.kind != input_kind:
        raise ToolFailed(
            f"{path.name}: input {own.name!r} is declared {own.kind}; this dataset's samples are "
            f"{input_kind}s: declare the input with {_what_to_declare(input_kind)} in its spec",
            "input_kind_mismatch", model=path.name, input=own.name)
    wanted = OUTPUT_KINDS.get(task, ()) if metric != "script" else ()
    outputs = [o for o in own_spec.outputs if not wanted or o.kind in wanted]
    if not outputs:
        holds = ("class scores (kind logits or probabilities, with labels)" if task == "classification"
                 else "boxes (kind boxes: rows of x1 y1 x2 y2 score class)")
        raise ToolFailed(f"{path.name}: its spec declares no {' or '.join(wanted)} output: declare the "
                         f"output that holds the {holds}", "model_spec_required", model=path.name)
    output = outputs[0]
    shape, from_spec = _shape(path, own, given, declared)
    return Plan(path, runtime, own_spec, own, output, shape, from_spec, _labels(spec_of or path, output))


# --- metrics --------------------------------------------------------------------------------

def iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of box ``a`` (x1 y1 x2 y2) with each row of ``b``."""
    x1, y1 = np.maximum(a[0], b[:, 0]), np.maximum(a[1], b[:, 1])
    x2, y2 = np.minimum(a[2], b[:, 2]), np.minimum(a[3], b[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a + area_b - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def match(predicted: list[tuple[float, list[float]]], truth: list[list[float]],
          threshold: float = IOU) -> list[bool]:
    """Which predictions (score, box) of one class on one image are true positives: by falling
    score, each takes the unmatched ground-truth box it overlaps most, at IoU ≥ ``threshold``."""
    gts = np.asarray(truth, dtype=np.float64).reshape(-1, 4)
    used = np.zeros(len(gts), dtype=bool)
    hits = [False] * len(predicted)
    for index in sorted(range(len(predicted)), key=lambda i: -predicted[i][0]):
        if not len(gts):
            break
        overlaps = iou(np.asarray(predicted[index][1], dtype=np.float64), gts)
        overlaps[used] = -1
        best = int(np.argmax(overlaps))
        if overlaps[best] >= threshold:
            used[best] = True
            hits[index] = True
    return hits


def average_precision(scores: list[float], hits: list[bool], positives: int) -> float:
    """Area under the precision-recall curve with precision made monotone (all-point
    interpolation, as PASCAL VOC since 2010); 0 for a class with no ground truth."""
    if positives == 0:
        return 0.0
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    tp = np.asarray(hits, dtype=np.float64)[order]
    if not tp.size:
        return 0.0
    cum_tp = np.cumsum(tp)
    recall = cum_tp / positives
    precision = cum_tp / np.arange(1, tp.size + 1)
    recall = np.concatenate([[0.0], recall, [1.0]])
    precision = np.concatenate([[0.0], precision, [0.0]])
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    steps = np.where(recall[1:] != recall[:-1])[0]
    return float(np.sum((recall[steps + 1] - recall[steps]) * precision[steps + 1]))
