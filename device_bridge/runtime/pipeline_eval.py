"""A pipeline evaluated end to end on a labelled set (docs/pipelines.md#evaluating-one): a folder
of images and one labels file naming each image's expected text or label. The metric follows what
the pipeline's last stage gives: text → character accuracy, classes → top-1 accuracy; any other is
refused by name. No server imports: a device's result is scored the same way."""

import csv
import io
import json
from pathlib import Path
from typing import Any

from device_bridge.runtime import preprocess
from device_bridge.runtime import spec as model_spec
from device_bridge.runtime.pipeline_spec import Pipeline

LABEL_FILES = ("labels.csv", "labels.tsv", "labels.jsonl")
FIELDS = ("text", "label")
# what a last stage gives → the metric that fits it
METRICS = {"text": "char_accuracy", "classes": "accuracy"}
MAX_SAMPLES = 1000


class EvalError(ValueError):
    """A labelled set, or a metric, that cannot be used; ``where`` names the file or field."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where, self.reason = where, reason


def _rows(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        rows = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise EvalError(f"{path.name} line {number}", f"not JSON ({exc.msg})") from None
            if not isinstance(row, dict):
                raise EvalError(f"{path.name} line {number}", "not an object")
            rows.append(row)
        return rows
    reader = csv.DictReader(io.StringIO(text), delimiter="\t" if path.suffix == ".tsv" else ",")
    if not reader.fieldnames or "file" not in reader.fieldnames:
        raise EvalError(path.name, "the first row must name the columns: file,text (or file,label)")
    return list(reader)


def _expected(row: dict[str, Any], where: str) -> tuple[str, str]:
    file, value = row.get("file"), next((row[f] for f in FIELDS if row.get(f) is not None), None)
    if not isinstance(file, str) or not file:
        raise EvalError(where, "no file")
    if not isinstance(value, str):
        raise EvalError(where, f"{file}: no text or label")
    return file, value


def read_labels(folder: Path) -> tuple[str, dict[Path, str]]:
    """``(labels file name, {image: expected})``; every image of the folder is labelled once."""
    found = [folder / name for name in LABEL_FILES if (folder / name).is_file()]
    if not found:
        raise EvalError(folder.name, f"no labels file ({', '.join(LABEL_FILES)}): the set is unlabeled")
    if len(found) > 1:
        raise EvalError(folder.name, f"two labels files: {found[0].name} and {found[1].name}")
    path = found[0]
    try:
        rows = _rows(path)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise EvalError(path.name, f"cannot be read ({exc})") from None
    labels: dict[Path, str] = {}
    for number, row in enumerate(rows, 1):
        file, value = _expected(row, f"{path.name} row {number}")
        image = (folder / file).resolve()
        if not image.is_relative_to(folder.resolve()) or not image.is_file():
            raise EvalError(f"{path.name} row {number}", f"{file} is not an image of the set")
        if image in labels:
            raise EvalError(f"{path.name} row {number}", f"{file} is labelled twice")
        labels[image] = value
    images = {p.resolve() for p in folder.iterdir() if p.suffix.lower() in preprocess.IMAGE_SUFFIXES}
    unlabeled = sorted(p.name for p in images - set(labels))
    if unlabeled:
        raise EvalError(path.name, f"{unlabeled[0]} has no label ({len(unlabeled)} images have none)")
    if not labels:
        raise EvalError(path.name, "labels no image")
    if len(labels) > MAX_SAMPLES:
        raise EvalError(path.name, f"{len(labels)} images; at most {MAX_SAMPLES}")
    return path.name, labels


def output_kind(pipeline: Pipeline) -> str:
    """What the last stage gives: text, classes, boxes or pictures (a model stage by its spec)."""
    last = pipeline.stages[-1]
    if last.model is None:
        return "boxes" if last.step in ("map_to_boxes", "nms") else "pictures"
    try:
        found = model_spec.load(last.model)
    except (model_spec.SpecError, OSError, UnicodeDecodeError) as exc:
        where = f"stages[{len(pipeline.stages) - 1}].model"
        raise EvalError(where, f"its spec cannot be read: {exc}") from None
    kinds = [o.kind for o in found.outputs] if found else []
    if "text" in kinds:
        return "text"
    if any(k in ("logits", "probabilities") for k in kinds):
        return "classes"
    return "boxes" if "boxes" in kinds else (kinds[0] if kinds else "tensor")


def choose_metric(pipeline: Pipeline, metric: str | None) -> str:
    """The metric for the last stage's output; one given that does not fit it is refused."""
    last = pipeline.stages[-1].id
    kind = output_kind(pipeline)
    fitting = METRICS.get(kind)
    if metric is not None and metric not in METRICS.values():
        raise EvalError("metric", f"{metric!r} is not one of {', '.join(METRICS.values())}")
    if fitting is None:
        raise EvalError("metric", f"the last stage {last!r} gives {kind}: no metric evaluates that")
    if metric is not None and metric != fitting:
        raise EvalError("metric", f"{metric!r} does not fit the last stage {last!r}, which gives {kind} "
                        f"({fitting})")
    return fitting


def distance(a: str, b: str) -> int:
    """Levenshtein: the characters to insert, delete or change to turn ``a`` into ``b``."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def got(run: dict[str, Any], metric: str) -> str:
    """What the last stage gave on one input: its items' texts (or top labels) joined by a space."""
    items = run["stages"][-1]["items"]
    found = []
    for item in items:
        for output in item.get("outputs", {}).values():
            if metric == "char_accuracy" and output.get("kind") == "text":
                found.append(output["text"])
                break
            if metric == "accuracy" and output.get("kind") == "classes" and output["top"]:
                found.append(str(output["top"][0]["label"]))
                break
    return " ".join(found)


def _sample(expected: str, read: str | None, metric: str) -> tuple[float, int]:
    """The sample's score and, for text, its edit distance."""
    if metric == "accuracy":
        return float(read == expected), 0
    edits = distance(read or "", expected)
    return max(0.0, 1 - edits / max(len(expected), 1)), edits


def score(result: dict[str, Any], evaluation: dict[str, Any]) -> dict[str, Any]:
    """``evaluation`` (``{dataset, labels_file, metric, labels: {input: expected}}``, inputs named
    as the result names them) against a pipeline run's result: per sample and over the set."""
    metric, labels = evaluation["metric"], evaluation["labels"]
    runs = {r["input"]: r for r in result["inputs"]}
    reasons = {f["input"]: f["reason"] for f in result.get("failed", [])}
    samples, edits = [], 0
    for name, expected in labels.items():
        run = runs.get(name)
        read = got(run, metric) if run is not None else None
        value, apart = _sample(expected, read, metric)
        edits += apart if read is not None else len(expected)
        samples.append({"input": name, "expected": expected, "got": read, "score": value,
                        "exact": read == expected, "ms": run["ms"] if run else None,
                        "reason": reasons.get(name)})
    if metric == "char_accuracy":
        value = max(0.0, 1 - edits / max(sum(len(e) for e in labels.values()), 1))
    else:
        value = sum(s["score"] for s in samples) / len(samples)
    return {"dataset": evaluation["dataset"], "labels_file": evaluation["labels_file"], "metric": metric,
            "value": value, "exact_match": sum(s["exact"] for s in samples) / len(samples),
            "count": len(samples), "median_ms": result["summary"]["end_to_end"]["median_ms"],
            "samples": samples}


def evaluation(pipeline: Pipeline, folder: Path, root: Path, metric: str | None) -> dict[str, Any]:
    """A labelled set ready to score a run of ``pipeline`` on it: its images named relative to
    ``root``, as a run's result names its inputs. Raises ``EvalError``."""
    if not folder.is_dir():
        raise EvalError("dataset", f"{folder.name}: a labelled set is a folder of images and a labels file")
    chosen = choose_metric(pipeline, metric)
    labels_file, labels = read_labels(folder)
    root = root.resolve()
    return {"dataset": folder.resolve().relative_to(root).as_posix(), "labels_file": labels_file,
            "metric": chosen, "labels": {p.relative_to(root).as_posix(): v for p, v in labels.items()}}
