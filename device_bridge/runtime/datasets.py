"""Datasets in a project folder, read into samples (docs/datasets.md). Standard library only, so
the tool workers and the device agent read them the same way.

Three layouts:

* **ImageFolder** (classification): ``root/<class>/<image>`` or, with splits,
  ``root/<split>/<class>/<image>`` where ``<split>`` is ``train``, ``val``, ``valid``,
  ``validation`` or ``test``. Classes are the class folders' names, sorted (a class index is
  its position, as torchvision's ``ImageFolder`` numbers them).
* **COCO** (detection): ``annotations.json`` or ``instances_<split>.json`` (in the folder or its
  ``annotations/``), its ``images[].file_name`` found beside the JSON, in the folder, in
  ``images/``, in ``<split>/`` or in ``images/<split>/``; boxes ``[x, y, w, h]`` become
  ``x1 y1 x2 y2``; crowd annotations are left out; classes are the categories sorted by id.
* **CSV** (tabular and sequence data, or files): a ``.csv`` whose header has a ``label`` column,
  an optional ``split`` column, and either a ``path`` column (a file beside the CSV: an image, a
  ``.wav``, a ``.npy``) or value columns (every other column, in header order, one number each).

A file that cannot be a sample (empty, truncated, text named ``.jpg``, a missing path, a row
with a value that is no number) is **skipped and named** in ``Dataset.skipped`` with the
reason, never counted as a sample. The checks here read a file's first and last bytes only (a
truncated JPEG or PNG shows at its end); a file that passes them and still cannot be decoded is
skipped by whoever decodes it (``preprocess`` raises ``InputFileError`` naming it).
"""

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from device_bridge.runtime.dataset_layouts import (
    IMAGE_SUFFIXES,
    SPLITS,
    DatasetError,
    coco_files,
    csv_header,
    image_folder_layout,
    not_a_dataset,
    split_dirs,
    visible,
)

FILE_SUFFIXES = IMAGE_SUFFIXES + (".wav", ".npy", ".npz")
# where a run evaluates when it names no split: the first of these the dataset has
EVAL_SPLITS = ("val", "validation", "valid", "test")
MAX_SKIPPED = 1000
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "PNG"), (b"\xff\xd8\xff", "JPEG"), (b"BM", "BMP"), (b"GIF8", "GIF"),
    (b"II*\x00", "TIFF"), (b"MM\x00*", "TIFF"),
)


@dataclass(frozen=True)
class Box:
    x1: float
    y1: float
    x2: float
    y2: float
    label: str


@dataclass(frozen=True)
class Sample:
    """One sample: a file (``path``) or a CSV row's ``values``, its class name (``label``; for
    detection, the boxes' labels are in ``boxes``) and its split (None without splits)."""

    path: Path | None
    label: str | None
    split: str | None = None
    values: tuple[float, ...] | None = None
    boxes: tuple[Box, ...] = ()
    row: int | None = None  # a CSV sample's line number (the header is line 1)

    def name(self, root: Path) -> str:
        """How a result names the sample: its file relative to ``root``, or ``row N``."""
        if self.path is None:
            return f"row {self.row}"
        try:
            return self.path.relative_to(root).as_posix()
        except ValueError:
            return self.path.name


@dataclass(frozen=True)
class Skipped:
    file: str  # relative to the dataset's folder (a CSV: ``row N`` or the file)
    reason: str
    split: str | None = None  # None: not known (a row too broken to say), or no splits


@dataclass
class Dataset:
    kind: str  # image_folder | coco | csv
    task: str  # classification | detection
    root: Path  # the folder (a CSV: the file)
    classes: list[str]
    samples: list[Sample]
    splits: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    skipped_count: int = 0
    input_kind: str = "image"  # what a sample feeds: image | audio | tensor

    @property
    def folder(self) -> Path:
        return self.root.parent if self.root.is_file() else self.root

    def skip(self, file: str, reason: str, split: str | None = None) -> None:
        self.skipped_count += 1
        if len(self.skipped) < MAX_SKIPPED:
            self.skipped.append(Skipped(file, reason, split))

    def split(self, name: str | None) -> list[Sample]:
        """The samples of split ``name`` (all of them for None)."""
        return list(self.samples) if name is None else [s for s in self.samples if s.split == name]

    def eval_split(self) -> str | None:
        """The split to evaluate on when none is asked for: val (or validation, valid, test);
        None (every sample) for a dataset without one."""
        return next((s for s in EVAL_SPLITS if s in self.splits), None)

    def counts(self) -> dict[str, dict[str, int]]:
        """Split (``all`` without splits) → class → samples (detection: boxes)."""
        table: dict[str, dict[str, int]] = {}
        for sample in self.samples:
            row = table.setdefault(sample.split or "all", {name: 0 for name in self.classes})
            labels = [box.label for box in sample.boxes] if self.task == "detection" else [sample.label]
            for label in labels:
                if label is not None:
                    row[label] = row.get(label, 0) + 1
        return table

    def files_per_split(self) -> dict[str, int]:
        table: dict[str, int] = {}
        for sample in self.samples:
            table[sample.split or "all"] = table.get(sample.split or "all", 0) + 1
        return table


def _kind(head: bytes) -> str | None:
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP"
    return next((kind for magic, kind in _SIGNATURES if head.startswith(magic)), None)


def image_problem(path: Path) -> str | None:
    """Why ``path`` cannot be an image sample, from its first and last bytes; None when it
    looks whole (decoding may still refuse it)."""
    try:
        size = path.stat().st_size
        if size == 0:
            return "empty file (0 bytes)"
        with path.open("rb") as handle:
            head = handle.read(512)
            handle.seek(max(0, size - 64))
            tail = handle.read(64)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    kind = _kind(head)
    if kind is None:
        try:
            text = head.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and "\x00" not in text:
            return f"not an image: the file is text ({text[:24].strip()!r}…)"
        return "not an image: its bytes start like no PNG, JPEG or BMP file"
    if kind == "JPEG" and not tail.rstrip(b"\x00").endswith(b"\xff\xd9"):
        return f"truncated JPEG: it ends before its end-of-image marker ({size} bytes)"
    if kind == "PNG" and b"IEND" not in tail:
        return f"truncated PNG: it ends before its IEND chunk ({size} bytes)"
    return None


def file_problem(path: Path) -> str | None:
    """Why a sample file cannot be used (images checked by ``image_problem``; other kinds only
    for being there and not empty)."""
    suffix = path.suffix.lower()
    if suffix in IMAGE_SUFFIXES:
        return image_problem(path)
    if suffix not in FILE_SUFFIXES:
        return f"not a sample file ({suffix or 'no suffix'}; {' '.join(FILE_SUFFIXES)})"
    try:
        if path.stat().st_size == 0:
            return "empty file (0 bytes)"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    return None


def _image_folder(root: Path, layout: str) -> Dataset:
    parts = [(s, s.name) for s in split_dirs(root)] if layout == "split" else [(root, None)]
    classes = sorted({c.name for folder, _ in parts for c in visible(folder) if c.is_dir()})
    found = Dataset("image_folder", "classification", root, classes, [],
                    splits=[name for _, name in parts if name])
    if layout == "split":
        for other in (p for p in visible(root) if p.is_dir() and p.name.lower() not in SPLITS):
            found.skip(other.name + "/", f"beside the splits, not read (splits: {', '.join(SPLITS)})")
    for folder, split in parts:
        for stray in (p for p in visible(folder) if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES):
            found.skip(stray.relative_to(root).as_posix(),
                       "an image outside any class folder (its class is unknown)", split)
        for cls in (c for c in visible(folder) if c.is_dir()):
            for path in visible(cls):
                rel = path.relative_to(root).as_posix()
                if path.is_dir():
                    found.skip(rel + "/", "a folder inside a class folder (not read)", split)
                    continue
                reason = (image_problem(path) if path.suffix.lower() in IMAGE_SUFFIXES
                          else f"not an image ({path.suffix.lower() or 'no suffix'}; "
                               f"{' '.join(IMAGE_SUFFIXES)})")
                if reason is None:
                    found.samples.append(Sample(path, cls.name, split))
                else:
                    found.skip(rel, reason, split)
    return found


def _coco_split(json_path: Path) -> str | None:
    stem = json_path.stem
    return stem[len("instances_"):] if stem.startswith("instances_") else None


def _load_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(path, f"not readable COCO JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("images"), list) \
            or not isinstance(data.get("annotations"), list) or not isinstance(data.get("categories"), list):
        raise DatasetError(path, "not COCO JSON: it needs images, annotations and categories lists")
    return data


def _coco(root: Path, jsons: list[Path]) -> Dataset:
    loaded = [(path, _load_json(path)) for path in jsons]
    categories: dict[int, str] = {}
    for path, data in loaded:
        for cat in data["categories"]:
            named = isinstance(cat, dict) and isinstance(cat.get("name"), str)
            if not (named and isinstance(cat.get("id"), int)):
                raise DatasetError(path, f"a category without an integer id and a name: {str(cat)[:80]}")
            categories.setdefault(cat["id"], cat["name"])
    ordered = sorted(categories)
    splits = [s for s in (_coco_split(p) for p, _ in loaded) if s]
    found = Dataset("coco", "detection", root, [categories[i] for i in ordered], [], splits=splits)
    for path, data in loaded:
        split = _coco_split(path)
        bases = [path.parent, root, root / "images"]
        if split:
            bases += [root / split, root / "images" / split]
        boxes: dict[Any, list[Box]] = {}
        for ann in data["annotations"]:
            if not isinstance(ann, dict) or ann.get("iscrowd"):
                continue
            bbox, cat = ann.get("bbox"), ann.get("category_id")
            if not (isinstance(bbox, list) and len(bbox) == 4 and cat in categories
                    and all(isinstance(v, (int, float)) for v in bbox)):
                found.skip(f"{path.name}: annotation {ann.get('id')}",
                           "no [x, y, w, h] bbox or an unknown category", split)
                continue
            x, y, w, h = (float(v) for v in bbox)
            boxes.setdefault(ann.get("image_id"), []).append(Box(x, y, x + w, y + h, categories[cat]))
        for image in data["images"]:
            name = image.get("file_name") if isinstance(image, dict) else None
            if not isinstance(name, str) or not name or name.startswith("/") or ".." in Path(name).parts:
                found.skip(f"{path.name}: image {str(image)[:60]}", "no usable file_name", split)
                continue
            place = next((b / name for b in bases if (b / name).is_file()), None)
            if place is None:
                looked = ", ".join(_rel(b, root) for b in bases)
                found.skip(name, f"not found beside {path.name} (looked in {looked})", split)
                continue
            reason = image_problem(place)
            if reason is not None:
                found.skip(_rel(place, root), reason, split)
                continue
            found.samples.append(Sample(place, None, split, boxes=tuple(boxes.get(image.get("id"), ()))))
    return found


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return path.name


def _csv(path: Path) -> Dataset:
    header = csv_header(path)
    if header is None or "label" not in header:
        raise DatasetError(path, "a CSV dataset needs a header row with a label column "
                                 "(and path, or value columns)")
    file_column = next((c for c in ("path", "file") if c in header), None)
    value_columns = [c for c in header if c not in ("label", "split", file_column)]
    if file_column is None and not value_columns:
        raise DatasetError(path, "the CSV has a label column but neither a path column nor value columns")
    found = Dataset("csv", "classification", path, [], [])
    labels: set[str] = set()
    splits: list[str] = []
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, fieldnames=header)
        next(reader, None)
        for line, row in enumerate(reader, start=2):
            sample = _csv_row(found, path, line, row, file_column, value_columns)
            if sample is None:
                continue
            found.samples.append(sample)
            labels.add(sample.label or "")
            if sample.split and sample.split not in splits:
                splits.append(sample.split)
    found.classes = sorted(labels)
    found.splits = splits
    suffixes = {s.path.suffix.lower() for s in found.samples if s.path is not None}
    found.input_kind = ("tensor" if file_column is None else "image" if suffixes <= set(IMAGE_SUFFIXES)
                        else "audio" if suffixes == {".wav"} else "tensor")
    return found


def _csv_row(found: Dataset, path: Path, line: int, row: dict[str, Any], file_column: str | None,
             value_columns: list[str]) -> Sample | None:
    where = f"row {line}"
    label = (row.get("label") or "").strip()
    split = (row.get("split") or "").strip() or None
    if not label:
        found.skip(where, "no label", split)
        return None
    if file_column is not None:
        rel = (row.get(file_column) or "").strip()
        target = (path.parent / rel).resolve() if rel else None
        if target is None or path.parent.resolve() not in target.parents:
            found.skip(where, f"{file_column} {rel!r} is not a file beside the CSV", split)
            return None
        if not target.is_file():
            found.skip(f"{where} ({rel})", "file not found", split)
            return None
        reason = file_problem(target)
        if reason is not None:
            found.skip(f"{where} ({rel})", reason, split)
            return None
        return Sample(target, label, split, row=line)
    values = []
    for column in value_columns:
        raw = (row.get(column) or "").strip()
        try:
            value = float(raw)
        except ValueError:
            found.skip(where, f"column {column}: {raw!r} is not a number", split)
            return None
        if not math.isfinite(value):
            found.skip(where, f"column {column}: {raw!r} is not finite", split)
            return None
        values.append(value)
    return Sample(None, label, split, values=tuple(values), row=line)


def read(path: Path) -> Dataset:
    """The dataset at ``path``: a folder (ImageFolder or COCO), a ``.csv`` file or a COCO
    ``.json``. Raises ``DatasetError`` when it is none of them."""
    if path.is_file() and path.suffix.lower() == ".csv":
        return _csv(path)
    if path.is_file() and path.suffix.lower() == ".json":
        return _coco(path.parent, [path])
    jsons = coco_files(path) if path.is_dir() else []
    if jsons:
        return _coco(path, jsons)
    layout = image_folder_layout(path) if path.is_dir() else None
    if layout is not None:
        return _image_folder(path, layout)
    raise not_a_dataset(path)


def interleaved(samples: list[Sample], limit: int | None = None) -> list[Sample]:
    """``samples`` taken class by class in turn (the first of each class, then the second, …),
    so a ``limit`` keeps every class; at most ``limit``."""
    by_class: dict[str | None, list[Sample]] = {}
    for sample in samples:
        by_class.setdefault(sample.label, []).append(sample)
    queues = [iter(v) for _, v in sorted(by_class.items(), key=lambda kv: kv[0] or "")]
    picked: list[Sample] = []
    while queues and (limit is None or len(picked) < limit):
        alive = []
        for queue in queues:
            item = next(queue, None)
            if item is not None:
                picked.append(item)
                alive.append(queue)
                if limit is not None and len(picked) >= limit:
                    break
        queues = alive
    return picked
