"""Find a project's datasets and summarise them (docs/datasets.md)."""

from pathlib import Path

from device_bridge.runtime import dataset_layouts, datasets
from device_bridge.runtime.datasets import Dataset
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.datasets.models import DatasetSummary, SkippedFile
from server.files.paths import relative, resolve
from server.projects.models import Project

MAX_DATASETS = 100
MAX_SKIPPED_SHOWN = 100
THUMBNAILS = 4  # per class
MAX_THUMBNAIL_CLASSES = 100


def _summary(root: str, path: Path, found: Dataset) -> DatasetSummary:
    thumbnails: dict[str, list[str]] = {}
    if found.input_kind == "image":
        split = found.eval_split() or ("train" if "train" in found.splits else None)
        for sample in found.split(split) or found.samples:
            if sample.path is None:
                continue
            label = sample.label or (sample.boxes[0].label if sample.boxes else "(no boxes)")
            if label not in thumbnails and len(thumbnails) >= MAX_THUMBNAIL_CLASSES:
                continue
            mine = thumbnails.setdefault(label, [])
            if len(mine) < THUMBNAILS:
                mine.append(relative(root, sample.path))
    return DatasetSummary(
        path=relative(root, path), kind=found.kind, task=found.task,  # type: ignore[arg-type]
        input_kind=found.input_kind, classes=found.classes,  # type: ignore[arg-type]
        splits=found.splits, eval_split=found.eval_split(), counts=found.counts(),
        files=found.files_per_split(), samples=len(found.samples), skipped_count=found.skipped_count,
        skipped=[SkippedFile(file=s.file, reason=s.reason) for s in found.skipped[:MAX_SKIPPED_SHOWN]],
        thumbnails=thumbnails,
    )


def _broken(root: str, path: Path, kind: str, error: str) -> DatasetSummary:
    task = "detection" if kind == "coco" else "classification"
    return DatasetSummary(path=relative(root, path), kind=kind, task=task, input_kind="image",  # type: ignore[arg-type]
                          classes=[], splits=[], eval_split=None, counts={}, files={}, samples=0,
                          skipped_count=0, skipped=[], thumbnails={}, error=error)


def list_datasets(project: Project) -> list[DatasetSummary]:
    """Every dataset of the project (at most ``MAX_DATASETS``), by path."""
    root = Path(project.path)
    found: list[DatasetSummary] = []
    for path, kind in dataset_layouts.detect(root):
        if len(found) >= MAX_DATASETS:
            break
        try:
            found.append(_summary(project.path, path, datasets.read(path)))
        except (datasets.DatasetError, OSError, UnicodeDecodeError) as exc:
            found.append(_broken(project.path, path, kind, str(exc)))
    return sorted(found, key=lambda d: d.path)


def read_dataset(project: Project, rel: str) -> DatasetSummary:
    """The dataset at ``rel``; 422 ``not_a_dataset`` (naming the layouts) when it is none."""
    path = resolve(project.path, rel)
    try:
        return _summary(project.path, path, datasets.read(path))
    except datasets.DatasetError as exc:
        raise Invalid(f"{rel}: {exc.reason}", code=ErrorCode.NOT_A_DATASET) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise Invalid(f"{rel}: cannot be read ({exc})", code=ErrorCode.NOT_A_DATASET) from None
