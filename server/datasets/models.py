"""What the datasets routes answer."""

from typing import Literal

from pydantic import BaseModel


class SkippedFile(BaseModel):
    file: str  # relative to the dataset's folder (a CSV's row: ``row N``)
    reason: str


class DatasetSummary(BaseModel):
    """One dataset: ``counts`` is split (``all`` without splits) → class → samples (boxes for
    detection); ``files`` split → files (rows); ``thumbnails`` class → a few of its images
    (project-relative, for the raw file route); ``skipped`` the first files that cannot be
    samples, ``skipped_count`` all of them. ``error``: the layout was recognised but the dataset
    cannot be read (a broken JSON); the rest is then empty."""

    path: str
    kind: Literal["image_folder", "coco", "csv"]
    task: Literal["classification", "detection"]
    input_kind: Literal["image", "audio", "tensor"]
    classes: list[str]
    splits: list[str]
    eval_split: str | None
    counts: dict[str, dict[str, int]]
    files: dict[str, int]
    samples: int
    skipped_count: int
    skipped: list[SkippedFile]
    thumbnails: dict[str, list[str]]
    error: str | None = None
