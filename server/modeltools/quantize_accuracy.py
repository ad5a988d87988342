"""Quantize's dataset: calibration images from its train split, and the accuracy the int8 model
lost against the float one on its val split, with the warnings that drop gives (docs/datasets.md)."""

from pathlib import Path
from typing import Any

from device_bridge.runtime import datasets
from device_bridge.runtime.datasets import Dataset
from server.modeltools import evaluate
from server.modeltools.progress import report
from server.modeltools.schemas import EvaluateArgs, QuantizeArgs

DROP_WARNING = 0.02  # an int8 top-1 (or mAP) this far below the float model's is a warning


def dataset_of(args: QuantizeArgs) -> Dataset | None:
    return evaluate.load_dataset(Path(args.dataset)) if args.dataset else None


def calibration_images(found: Dataset) -> tuple[list[Path], list[dict[str, str]]]:
    """The images that calibrate: the train split's (every sample's without one), class by class
    in turn, so that a ``max_samples`` keeps every class; and the files of that split the
    dataset's reader skipped, with the reason."""
    split = "train" if "train" in found.splits else None
    files = [s.path for s in datasets.interleaved(found.split(split)) if s.path is not None]
    skipped = [{"file": s.file, "reason": s.reason} for s in found.skipped
               if split is None or s.split in (None, split)]
    return files, skipped


def accuracy_drop(args: QuantizeArgs, found: Dataset, int8: Path) -> dict[str, Any]:
    """The float model and the int8 one it was quantized into, evaluated on the dataset's val
    (or test) split, fed by the float model's spec."""
    report(0.93, "evaluating float and int8 on the dataset")
    check = EvaluateArgs(models=[args.model, str(int8)], dataset=str(args.dataset), backend=args.backend,
                         threads=args.threads, precision=args.precision, power=args.power,
                         input_shapes=args.input_shapes, root=str(Path(args.model).parent))
    result = evaluate.run(check, found, spec_of=Path(args.model))
    headline = "top1" if result["metric"] == "accuracy" else "map50"
    float_row, int8_row = result["models"]
    keep = ("top1", "top5", "map50", "median_ms")
    return {
        "dataset": Path(args.dataset or "").name, "split": result["split"], "metric": result["metric"],
        "headline": headline, "samples": result["samples"], "skipped_count": result["skipped_count"],
        "float": {k: float_row[k] for k in keep if k in float_row},
        "int8": {k: int8_row[k] for k in keep if k in int8_row},
        "drop": float_row[headline] - int8_row[headline],
        "disagreement_count": result["disagreement_count"],
        "calibrated_on_evaluated": result["split"] is None and args.calibration is None,
    }


def drop_warnings(accuracy: dict[str, Any] | None) -> list[str]:
    if accuracy is None:
        return []
    found = []
    if accuracy["drop"] > DROP_WARNING:
        headline = accuracy["headline"]
        name = "top-1" if headline == "top1" else "mAP@0.5"
        found.append(f"the int8 model's {name} is {100 * accuracy['drop']:.1f} points below the float "
                     f"model's ({100 * accuracy['int8'][headline]:.1f}% against "
                     f"{100 * accuracy['float'][headline]:.1f}% on {accuracy['samples']} samples): try EMA, "
                     "more calibration images, or skip the ops that lose the most (their cosines above)")
    if accuracy["calibrated_on_evaluated"]:
        found.append("the dataset has no val or test split: the accuracy was measured on the images that "
                     "calibrated, which flatters the int8 model")
    return found
