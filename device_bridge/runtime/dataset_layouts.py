"""Which layout a dataset has, from its folders and names alone: what ``datasets.read`` reads it
as, ``peek`` to tell its task and input without reading its files, and ``detect`` to find the
datasets under a project's folder (docs/datasets.md). Standard library only, as ``datasets``."""

import csv
import os
from collections.abc import Iterator
from pathlib import Path

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
SPLITS = ("train", "val", "valid", "validation", "test")
MAX_SCAN_DIRS = 5000
MAX_DEPTH = 4
SKIP_DIRS = {"node_modules", "__pycache__", ".git", "venv", ".venv"}


class DatasetError(ValueError):
    """``path`` is not a dataset in any layout, or one that cannot be read; ``reason`` says why
    and what the layouts are."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path.name}: {reason}")
        self.path, self.reason = path, reason


def visible(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    except OSError:
        return []


def _has_images(folder: Path) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(e.is_file() and Path(e.name).suffix.lower() in IMAGE_SUFFIXES for e in entries)
    except OSError:
        return False


def _class_layout(folder: Path, least: int, loose: bool = False) -> bool:
    """``folder`` holds class folders of images (at least ``least`` of them with an image) and,
    unless ``loose``, no images of its own."""
    if not loose and _has_images(folder):
        return False
    classes = [p for p in visible(folder) if p.is_dir()]
    return sum(1 for c in classes if _has_images(c)) >= least


def split_dirs(folder: Path) -> list[Path]:
    return [p for p in visible(folder) if p.is_dir() and p.name.lower() in SPLITS]


def image_folder_layout(folder: Path) -> str | None:
    """``split``, ``classes`` or None."""
    splits = split_dirs(folder)
    if splits and all(_class_layout(s, 1, loose=True) for s in splits):
        return "split"
    if _class_layout(folder, 2):
        return "classes"
    return None


def coco_files(folder: Path) -> list[Path]:
    found = []
    for where in (folder, folder / "annotations"):
        if where.is_dir():
            found += [p for p in visible(where) if p.is_file() and (
                p.name == "annotations.json" or (p.name.startswith("instances_") and p.suffix == ".json"))]
    return found


def csv_header(path: Path) -> list[str] | None:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            return [c.strip() for c in next(csv.reader(handle), [])]
    except (OSError, UnicodeDecodeError, csv.Error):
        return None


def is_csv_dataset(path: Path) -> bool:
    return path.suffix.lower() == ".csv" and "label" in (csv_header(path) or [])


def not_a_dataset(path: Path) -> DatasetError:
    if path.is_file():
        return DatasetError(path, "a dataset is a folder, a .csv or a COCO .json file")
    if not path.is_dir():
        return DatasetError(path, "not found")
    return DatasetError(path, "not a dataset: an image dataset holds class folders of images "
                              "(<class>/<image> or <split>/<class>/<image>, split train, val or test), "
                              "a detection dataset annotations.json or instances_<split>.json (COCO); "
                              "tabular data is a .csv with a label column (docs/datasets.md)")


def peek(path: Path) -> tuple[str, str, str]:
    """``(kind, task, input_kind)`` of the dataset at ``path`` from its layout alone (a CSV: its
    header and first row), without checking its files; raises ``DatasetError`` as ``read``."""
    if path.is_file() and path.suffix.lower() == ".csv":
        header = csv_header(path)
        if header is None or "label" not in header:
            raise DatasetError(path, "a CSV dataset needs a header row with a label column "
                                     "(and path, or value columns)")
        column = next((c for c in ("path", "file") if c in header), None)
        if column is None:
            return "csv", "classification", "tensor"
        with path.open(newline="", encoding="utf-8") as handle:
            rows = csv.DictReader(handle)
            first = next(rows, None) or {}
        suffix = Path((first.get(column) or "").strip()).suffix.lower()
        kind = "image" if suffix in IMAGE_SUFFIXES else "audio" if suffix == ".wav" else "tensor"
        return "csv", "classification", kind
    if (path.is_file() and path.suffix.lower() == ".json") or (path.is_dir() and coco_files(path)):
        return "coco", "detection", "image"
    if path.is_dir() and image_folder_layout(path) is not None:
        return "image_folder", "classification", "image"
    raise not_a_dataset(path)


def detect(root: Path, max_depth: int = MAX_DEPTH) -> Iterator[tuple[Path, str]]:
    """``(path, kind)`` of every dataset under ``root`` (not descending into one found), by
    layout alone: no file is read but CSV headers."""
    pending = [(root, 0)]
    seen = 0
    while pending and seen < MAX_SCAN_DIRS:
        folder, depth = pending.pop(0)
        seen += 1
        if coco_files(folder):
            yield folder, "coco"
            continue
        if folder != root and image_folder_layout(folder) is not None:
            yield folder, "image_folder"
            continue
        children = visible(folder)
        for child in children:
            if child.is_file() and is_csv_dataset(child):
                yield child, "csv"
        if depth < max_depth:
            pending += [(c, depth + 1) for c in children
                        if c.is_dir() and not c.is_symlink() and c.name not in SKIP_DIRS]
