"""Evaluate: a source model (ONNX Runtime, or a TFLite interpreter where one is installed) and
its MNN variants on the same samples of a dataset, in one run (docs/datasets.md).

Each sample is decoded and preprocessed once, by the models' specs, and the very same tensor is
fed to every model whose input is preprocessed alike (``evaluation.Plan.key``). Per model: top-1
and top-5 (classification) or mAP@0.5 (detection) or what a metric script of the project
computes, per-class rows, the confusion matrix, the median latency of its runs (feeding, running
and reading its output); and the samples on which the models do not all answer the same.
A sample that cannot be read is skipped and named, never counted.
"""

import importlib.util
import time
from pathlib import Path
from typing import Any

import numpy as np

from device_bridge.runtime import datasets, decode, preprocess
from device_bridge.runtime.datasets import Dataset, Sample
from server.modeltools import evaluate_models, evaluation, shapes
from server.modeltools.errors import ToolFailed
from server.modeltools.evaluation import Plan
from server.modeltools.progress import report
from server.modeltools.schemas import EvaluateArgs

MAX_DISAGREEMENTS = 200
MAX_SKIPPED = 200
TOP_K = 5


# --- scoring --------------------------------------------------------------------------------

class Classes:
    """Top-1 / top-5 of one model, its confusion matrix and what it answered per sample."""

    def __init__(self, plan: Plan, classes: list[str]) -> None:
        self.plan, self.classes = plan, classes
        self.labels = plan.labels
        if self.labels is not None:
            missing = [c for c in classes if c not in self.labels]
            if missing:
                shown = ", ".join(self.labels[:8]) + ("…" if len(self.labels) > 8 else "")
                raise ToolFailed(
                    f"{plan.path.name}: class {missing[0]!r} of the dataset is not among the labels of "
                    f"output {plan.output.name!r} ({shown}): a class folder must be named as the model's "
                    "label", "labels_mismatch", model=plan.path.name)
            self.dataset_index = np.asarray([classes.index(lab) if lab in classes else -1
                                             for lab in self.labels])
        else:
            self.dataset_index = np.arange(len(classes))
        self.top1 = self.top5 = self.count = 0
        self.confusion = np.zeros((len(classes), len(classes) + 1), dtype=np.int64)

    def _check(self, scores: np.ndarray, raw: np.ndarray) -> None:
        what = f"{self.plan.path.name}: output {self.plan.output.name!r}"
        if scores.ndim != 1:
            raise ToolFailed(f"{what} should be one score per class, it has shape {list(raw.shape)}",
                             "bad_model_spec")
        if self.labels is not None and len(self.labels) != scores.size:
            raise ToolFailed(f"{what} has {scores.size} classes, its labels list {len(self.labels)}",
                             "bad_model_spec")
        if self.labels is None and scores.size != len(self.classes):
            raise ToolFailed(
                f"{self.plan.path.name}: output {self.plan.output.name!r} has {scores.size} classes and the "
                f"dataset {len(self.classes)}; without labels in the spec the classes cannot be paired: "
                "declare the output's labels (one per class, as the class folders are named)",
                "labels_required", model=self.plan.path.name)

    def add(self, truth: int, raw: np.ndarray) -> dict[str, Any]:
        scores = raw
        while scores.ndim > 1 and scores.shape[0] == 1:  # batch dims of 1
            scores = scores[0]
        if self.count == 0:
            self._check(scores, raw)
        order = np.argsort(-scores, kind="stable")[:TOP_K]
        mapped = self.dataset_index[order]
        best = int(order[0])
        self.count += 1
        self.top1 += int(mapped[0] == truth)
        self.top5 += int(truth in mapped)
        column = int(mapped[0]) if mapped[0] >= 0 else len(self.classes)
        self.confusion[truth, column] += 1
        if self.plan.output.kind == "logits":
            score = float(decode.softmax(scores)[best])
        else:
            score = float(scores[best])
        label = self.labels[best] if self.labels else self.classes[best]
        return {"label": label, "score": round(score, 4), "right": bool(mapped[0] == truth)}

    def figures(self) -> dict[str, Any]:
        n = max(self.count, 1)
        return {"top1": self.top1 / n, "top5": self.top5 / n, "correct": self.top1}


class Boxes:
    """mAP@0.5 of one model: every box it kept (at its spec's threshold), matched per image and
    class to the ground truth."""

    def __init__(self, plan: Plan, classes: list[str]) -> None:
        self.plan = plan
        self.labels = plan.labels or classes
        self.classes = classes
        self.scores: dict[str, list[float]] = {c: [] for c in classes}
        self.hits: dict[str, list[bool]] = {c: [] for c in classes}
        self.positives: dict[str, int] = {c: 0 for c in classes}

    def add(self, sample: Sample, raw: np.ndarray, frame: preprocess.Frame | None) -> dict[str, Any]:
        try:
            read = decode.boxes(self.plan.output, raw, self.labels, frame)
        except decode.DecodeError as exc:
            raise ToolFailed(f"{self.plan.path.name}: {exc}", "bad_model_spec") from None
        right = 0
        for cls in self.classes:
            truth = [[b.x1, b.y1, b.x2, b.y2] for b in sample.boxes if b.label == cls]
            found = [(b["score"], b["box"]) for b in read["boxes"] if b["label"] == cls]
            self.positives[cls] += len(truth)
            hits = evaluation.match(found, truth)
            self.scores[cls] += [score for score, _ in found]
            self.hits[cls] += hits
            right += sum(hits)
        return {"label": f"{len(read['boxes'])} boxes, {right} right", "boxes": len(read["boxes"]),
                "right": right}

    def per_class(self) -> dict[str, float]:
        return {c: evaluation.average_precision(self.scores[c], self.hits[c], self.positives[c])
                for c in self.classes}

    def figures(self) -> dict[str, Any]:
        aps = [ap for c, ap in self.per_class().items() if self.positives[c] > 0]
        return {"map50": float(np.mean(aps)) if aps else 0.0}


class Script:
    """A metric script of the project: ``evaluate(outputs, labels) -> {name: number}`` over the
    model's raw outputs (one array per sample) and the samples' labels."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.outputs: list[np.ndarray] = []
        self.truth: list[str | None] = []

    def add(self, sample: Sample, raw: np.ndarray) -> dict[str, Any]:
        self.outputs.append(raw)
        self.truth.append(sample.label)
        flat = raw.reshape(-1)
        return {"label": str(int(np.argmax(flat))) if flat.size > 1 else f"{float(flat[0]):.4g}"}

    def figures(self) -> dict[str, Any]:
        loader = importlib.util.spec_from_file_location("project_metric", self.path)
        if loader is None or loader.loader is None:
            raise ToolFailed(f"metric script {self.path.name} cannot be loaded", "bad_metric")
        module = importlib.util.module_from_spec(loader)
        try:
            loader.loader.exec_module(module)
            found = module.evaluate(self.outputs, self.truth)
        except Exception as exc:
            raise ToolFailed(f"metric script {self.path.name} failed: {type(exc).__name__}: {exc}",
                             "bad_metric") from None
        if not isinstance(found, dict) or not found or not all(
                isinstance(k, str) and isinstance(v, (int, float)) for k, v in found.items()):
            raise ToolFailed(f"metric script {self.path.name}: evaluate(outputs, labels) must return "
                             "{name: number}", "bad_metric")
        return {"metrics": {k: float(v) for k, v in found.items()}}


# --- the run --------------------------------------------------------------------------------

def load_dataset(path: Path) -> Dataset:
    try:
        return datasets.read(path)
    except datasets.DatasetError as exc:
        raise ToolFailed(str(exc), "not_a_dataset") from None


def _split(found: Dataset, asked: str | None) -> str | None:
    if asked is None:
        return found.eval_split()
    if asked not in found.splits:
        known = ", ".join(found.splits) or "none"
        raise ToolFailed(f"the dataset has no split {asked!r} (its splits: {known})", "bad_split")
    return asked


def _tensor(plan: Plan, sample: Sample) -> tuple[np.ndarray, preprocess.Frame | None]:
    assert plan.shape is not None
    if sample.path is not None:
        return preprocess.tensor(plan.input, plan.shape, sample.path)
    values = np.asarray(sample.values, dtype=np.float32)
    if values.size != int(np.prod(plan.shape)):
        raise ToolFailed(f"row {sample.row} holds {values.size} values; input {plan.input.name!r} of "
                         f"{plan.path.name} runs at {plan.shape}: give its shape in input_shapes",
                         "input_shape_mismatch")
    return np.ascontiguousarray(values.reshape(plan.shape), dtype=np.dtype(plan.input.dtype)), None


def _latency(times: list[float]) -> dict[str, float | None]:
    if not times:
        return {"median_ms": None, "p90_ms": None, "mean_ms": None}
    values = np.asarray(times)
    return {"median_ms": float(np.median(values)), "p90_ms": float(np.percentile(values, 90)),
            "mean_ms": float(values.mean())}


def _relative(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.name


def _plans(args: EvaluateArgs, found: Dataset, metric: str, spec_of: Path | None) -> list[Plan]:
    return [evaluation.plan(Path(m), found.task, found.input_kind, metric, args.input_shapes,
                            shapes.declared(m), spec_of) for m in args.models]


def run(args: EvaluateArgs, found: Dataset | None = None, spec_of: Path | None = None) -> dict[str, Any]:
    """The evaluation; ``found``: the dataset already read, ``spec_of``: the model whose spec
    every model is fed by (quantize's check, before its int8 model has a spec of its own)."""
    root = Path(args.root) if args.root else Path(args.dataset).parent
    found = found or load_dataset(Path(args.dataset))
    metric = evaluation.metric_kind(args.metric, found.task)
    split = _split(found, args.split)
    samples = datasets.interleaved(found.split(split))  # ``limit`` counts the samples read
    wanted = min(len(samples), args.limit or len(samples))
    if not samples:
        raise ToolFailed(f"the dataset has no usable sample{f' in split {split}' if split else ''} "
                         f"({found.skipped_count} skipped)", "no_samples")
    plans = _plans(args, found, metric, spec_of)
    report(0.02, "loading models")
    runners = [evaluate_models.OPENERS[plan.runtime](plan, args) for plan in plans]
    groups: dict[tuple[Any, ...], Plan] = {}
    for plan in plans:
        groups.setdefault(plan.key(), plan)
    class_index = {name: i for i, name in enumerate(found.classes)}
    scorers: list[Any]
    if metric == "accuracy":
        scorers = [Classes(plan, found.classes) for plan in plans]
    elif metric == "map50":
        scorers = [Boxes(plan, found.classes) for plan in plans]
    else:
        scorers = [Script(Path(args.metric or "")) for _ in plans]
    times: list[list[float]] = [[] for _ in plans]
    prep_times: list[float] = []
    skipped = [{"file": s.file, "reason": s.reason} for s in found.skipped
               if split is None or s.split in (None, split)]
    skipped_count = sum(1 for s in found.skipped if split is None or s.split in (None, split)) \
        + max(0, found.skipped_count - len(found.skipped))
    disagreements: list[dict[str, Any]] = []
    disagreement_count = 0
    evaluated = 0
    every = max(1, wanted // 50)
    started = time.perf_counter()
    report(0.05, f"evaluating {wanted} samples")
    for sample in samples:
        if evaluated == wanted:
            break
        begin = time.perf_counter()
        try:
            fed = {key: _tensor(plan, sample) for key, plan in groups.items()}
        except preprocess.InputFileError as exc:
            skipped_count += 1
            if len(skipped) < MAX_SKIPPED:
                skipped.append({"file": sample.name(found.folder), "reason": exc.reason})
            print(f"evaluate: skipped {sample.name(found.folder)}: {exc.reason}", flush=True)
            continue
        prep_times.append((time.perf_counter() - begin) * 1000.0)
        answers = []
        for number, (plan, runner, scorer) in enumerate(zip(plans, runners, scorers, strict=True)):
            value, frame = fed[plan.key()]
            begin = time.perf_counter()
            raw = runner(value)
            times[number].append((time.perf_counter() - begin) * 1000.0)
            if metric == "accuracy":
                answers.append(scorer.add(class_index[sample.label or ""], raw))
            elif metric == "map50":
                answers.append(scorer.add(sample, raw, frame))
            else:
                answers.append(scorer.add(sample, raw))
        evaluated += 1
        if len(plans) > 1 and len({(a["label"], a.get("right")) for a in answers}) > 1:
            disagreement_count += 1
            if len(disagreements) < MAX_DISAGREEMENTS:
                disagreements.append({"file": _relative(root, sample.path) if sample.path else None,
                                      "sample": sample.name(found.folder), "label": sample.label,
                                      "answers": answers})
        if evaluated % every == 0:
            report(0.05 + 0.9 * evaluated / wanted, f"sample {evaluated} of {wanted}")
    elapsed = time.perf_counter() - started
    if evaluated == 0:
        raise ToolFailed(f"no sample of the dataset could be read ({skipped_count} skipped: "
                         + "; ".join(f"{s['file']}: {s['reason']}" for s in skipped[:5]) + ")", "no_samples")
    report(0.97, "scoring")
    rows = []
    for plan, scorer, spent in zip(plans, scorers, times, strict=True):
        rows.append({"model": _relative(root, plan.path), "runtime": plan.runtime,
                     "kind": evaluate_models.describe(plan),
                     "input_shape": plan.shape, "shape_from_spec": plan.from_spec,
                     **scorer.figures(), **_latency(spent)})
    headline = {"accuracy": "top1", "map50": "map50"}.get(metric)
    if headline:
        for row in rows[1:]:
            row["drop"] = rows[0][headline] - row[headline]
    result: dict[str, Any] = {
        "dataset": _relative(root, Path(args.dataset)),
        "dataset_kind": found.kind,
        "task": found.task,
        "split": split,
        "metric": metric if metric != "script" else _relative(root, Path(args.metric or "")),
        "classes": found.classes,
        "samples": evaluated,
        "skipped_count": skipped_count,
        "skipped": skipped[:MAX_SKIPPED],
        "input_shapes": {_relative(root, p.path): {p.input.name: p.shape} for p in plans},
        "preprocessed": {"groups": len(groups), "median_ms": float(np.median(prep_times))},
        "runtime": {"backend": args.backend, "threads": args.threads, "precision": args.precision,
                    "power": args.power},
        "models": rows,
        "per_class": _per_class(found, metric, scorers),
        "confusion": ([s.confusion.tolist() for s in scorers] if metric == "accuracy" else None),
        "confusion_columns": (found.classes + ["(other)"]) if metric == "accuracy" else None,
        "disagreement_count": disagreement_count,
        "disagreements": disagreements,
        "elapsed_s": elapsed,
        "samples_per_s": evaluated / elapsed if elapsed > 0 else None,
    }
    return result


def _per_class(found: Dataset, metric: str, scorers: list[Any]) -> list[dict[str, Any]] | None:
    """Per class: its samples (boxes for detection) and each model's recall and precision
    (classification) or AP@0.5 (detection)."""
    if metric == "accuracy":
        rows = []
        for index, name in enumerate(found.classes):
            support = int(scorers[0].confusion[index].sum())
            per_model = []
            for scorer in scorers:
                right = int(scorer.confusion[index, index])
                predicted = int(scorer.confusion[:, index].sum())
                per_model.append({"correct": right, "recall": right / support if support else None,
                                  "precision": right / predicted if predicted else None})
            rows.append({"class": name, "support": support, "models": per_model})
        return rows
    if metric == "map50":
        aps = [scorer.per_class() for scorer in scorers]
        return [{"class": name, "support": scorers[0].positives[name],
                 "models": [{"ap50": ap[name]} for ap in aps]} for name in found.classes]
    return None
