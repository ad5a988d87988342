"""Dataset readers (``device_bridge/runtime/datasets.py``) on real photos: each layout, the
files that cannot be samples skipped and named, detection in a project folder; and the
detection metric of ``server/modeltools/evaluation.py``."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from device_bridge.runtime import dataset_layouts, datasets
from server.modeltools import evaluation
from tests.fakes import photo_classifier
from tests.fakes.photos import CAT, COFFEE, ROCKET, photo, truncated


@pytest.fixture(scope="module")
def crops(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return photo_classifier.make_dataset(tmp_path_factory.mktemp("crops") / "photos", train=6, val=3)


def _copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def test_an_image_folder_with_splits_names_every_file_it_skips(crops: Path, tmp_path: Path) -> None:
    root = _copy(crops, tmp_path / "photos")
    truncated(root / "val" / "cat" / "cat_000.jpg", root / "val" / "cat" / "cut.jpg")
    truncated(root / "train" / "coffee" / "coffee_001.png", root / "train" / "coffee" / "cut.png")
    (root / "val" / "rocket" / "notes.png").write_text("not a photo at all")
    (root / "val" / "rocket" / "empty.jpg").write_bytes(b"")
    (root / "train" / "cat" / "readme.txt").write_text("cats")
    shutil.copy(photo(CAT), root / "train" / "loose.png")
    (root / "extra").mkdir()

    found = datasets.read(root)
    assert (found.kind, found.task, found.input_kind) == ("image_folder", "classification", "image")
    assert found.classes == ["astronaut", "cat", "coffee", "rocket"]
    assert found.splits == ["train", "val"]
    assert found.eval_split() == "val"
    assert len(found.samples) == 4 * 6 + 4 * 3
    assert found.counts() == {"train": {c: 6 for c in found.classes}, "val": {c: 3 for c in found.classes}}
    reasons = {s.file: s.reason for s in found.skipped}
    assert reasons["val/cat/cut.jpg"].startswith("truncated JPEG")
    assert reasons["train/coffee/cut.png"].startswith("truncated PNG")
    assert reasons["val/rocket/notes.png"].startswith("not an image: the file is text ('not a photo")
    assert reasons["val/rocket/empty.jpg"] == "empty file (0 bytes)"
    assert reasons["train/cat/readme.txt"].startswith("not an image (.txt")
    assert reasons["train/loose.png"].startswith("an image outside any class folder")
    assert reasons["extra/"].startswith("beside the splits")
    assert found.skipped_count == len(reasons) == 7
    assert {s.split for s in found.skipped if s.file.startswith("val/")} == {"val"}
    # a bad file is never a sample
    assert not {s.path.name for s in found.samples} & {"cut.jpg", "cut.png", "notes.png", "empty.jpg"}


def test_an_image_folder_without_splits_and_a_limit_keeps_every_class(crops: Path, tmp_path: Path) -> None:
    root = tmp_path / "flat"
    for folder in (crops / "train").iterdir():
        shutil.copytree(folder, root / folder.name)
    found = datasets.read(root)
    assert found.splits == [] and found.eval_split() is None
    assert found.counts() == {"all": {c: 6 for c in found.classes}}
    picked = datasets.interleaved(found.split(None), limit=6)
    assert [s.label for s in picked] == ["astronaut", "cat", "coffee", "rocket", "astronaut", "cat"]


def _photo_at(source: str, target: Path, size: tuple[int, int]) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(photo(source)) as image:
        image.convert("RGB").resize(size).save(target)
    return target


def test_coco_boxes_become_corners_and_missing_images_are_named(tmp_path: Path) -> None:
    root = tmp_path / "det"
    _photo_at(CAT, root / "images" / "cat.jpg", (90, 60))
    _photo_at(ROCKET, root / "images" / "rocket.jpg", (64, 43))
    truncated(root / "images" / "rocket.jpg", root / "images" / "cut.jpg")
    (root / "annotations.json").write_text(json.dumps({
        "images": [{"id": 1, "file_name": "cat.jpg"}, {"id": 2, "file_name": "rocket.jpg"},
                   {"id": 3, "file_name": "gone.jpg"}, {"id": 4, "file_name": "cut.jpg"}],
        "categories": [{"id": 7, "name": "rocket"}, {"id": 3, "name": "cat"}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 3, "bbox": [10, 5, 40, 30]},
            {"id": 2, "image_id": 2, "category_id": 7, "bbox": [20, 0, 10, 40]},
            {"id": 3, "image_id": 2, "category_id": 7, "bbox": [0, 0, 64, 43], "iscrowd": 1},
            {"id": 4, "image_id": 2, "category_id": 99, "bbox": [0, 0, 1, 1]},
        ],
    }))
    found = datasets.read(root)
    assert (found.kind, found.task) == ("coco", "detection")
    assert found.classes == ["cat", "rocket"]  # categories by id
    by_name = {s.path.name: s for s in found.samples}
    assert sorted(by_name) == ["cat.jpg", "rocket.jpg"]
    assert by_name["cat.jpg"].boxes == (datasets.Box(10, 5, 50, 35, "cat"),)
    assert by_name["rocket.jpg"].boxes == (datasets.Box(20, 0, 30, 40, "rocket"),)  # the crowd one left out
    reasons = {s.file: s.reason for s in found.skipped}
    assert reasons["gone.jpg"].startswith("not found beside annotations.json")
    assert reasons["images/cut.jpg"].startswith("truncated JPEG")
    assert "unknown category" in reasons["annotations.json: annotation 4"]
    assert found.counts() == {"all": {"cat": 1, "rocket": 1}}


def test_coco_splits_from_instances_files(tmp_path: Path) -> None:
    root = tmp_path / "coco"
    _photo_at(COFFEE, root / "val2017" / "a.png", (60, 40))
    (root / "annotations").mkdir()
    (root / "annotations" / "instances_val2017.json").write_text(json.dumps({
        "images": [{"id": 1, "file_name": "a.png"}], "categories": [{"id": 1, "name": "cup"}],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4]}]}))
    found = datasets.read(root)
    assert found.splits == ["val2017"] and found.samples[0].split == "val2017"
    (root / "annotations" / "instances_val2017.json").write_text("{\"images\": []}")
    with pytest.raises(datasets.DatasetError, match="needs images, annotations and categories"):
        datasets.read(root)


def test_a_csv_of_values_and_a_csv_of_files(crops: Path, tmp_path: Path) -> None:
    table = tmp_path / "table.csv"
    table.write_text("a,b,label,split\n1,2,yes,train\n3,x,no,train\n5,6,no,val\n,7,yes,val\n8,9,,val\n")
    found = datasets.read(table)
    assert (found.kind, found.input_kind, found.classes) == ("csv", "tensor", ["no", "yes"])
    assert [(s.values, s.label, s.split) for s in found.samples] == [((1.0, 2.0), "yes", "train"),
                                                                     ((5.0, 6.0), "no", "val")]
    assert {s.file: s.reason for s in found.skipped} == {"row 3": "column b: 'x' is not a number",
                                                         "row 5": "column a: '' is not a number",
                                                         "row 6": "no label"}
    files = tmp_path / "files.csv"
    shutil.copy(crops / "val" / "cat" / "cat_000.jpg", tmp_path / "one.jpg")
    (tmp_path / "empty.png").write_bytes(b"")
    files.write_text("path,label\none.jpg,cat\nmissing.jpg,cat\nempty.png,dog\n../../etc/passwd,cat\n")
    found = datasets.read(files)
    assert found.input_kind == "image" and [s.path.name for s in found.samples] == ["one.jpg"]
    assert {s.file: s.reason for s in found.skipped} == {
        "row 3 (missing.jpg)": "file not found", "row 4 (empty.png)": "empty file (0 bytes)",
        "row 5": "path '../../etc/passwd' is not a file beside the CSV"}
    assert dataset_layouts.peek(files) == ("csv", "classification", "image")


def test_datasets_are_found_in_a_project_and_others_refused_by_layout(crops: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    _copy(crops, project / "data" / "photos")
    (project / "data" / "calib").mkdir()
    shutil.copy(photo(CAT), project / "data" / "calib" / "a.png")  # images with no classes: no dataset
    (project / "tables").mkdir()
    (project / "tables" / "t.csv").write_text("x,label\n1,a\n")
    (project / "tables" / "other.csv").write_text("x,y\n1,2\n")
    _photo_at(CAT, project / "det" / "images" / "c.jpg", (30, 20))
    (project / "det" / "annotations.json").write_text(json.dumps(
        {"images": [], "annotations": [], "categories": []}))
    (project / ".hidden" / "a" / "b").mkdir(parents=True)
    found = sorted((p.relative_to(project).as_posix(), kind) for p, kind in dataset_layouts.detect(project))
    assert found == [("data/photos", "image_folder"), ("det", "coco"), ("tables/t.csv", "csv")]
    with pytest.raises(datasets.DatasetError, match="class folders of images"):
        datasets.read(project / "data" / "calib")
    with pytest.raises(datasets.DatasetError, match="a label column"):
        datasets.read(project / "tables" / "other.csv")


def test_average_precision_by_hand() -> None:
    truth = [[0, 0, 10, 10], [20, 20, 30, 30]]
    predicted = [(0.9, [0, 0, 10, 10]), (0.8, [0, 0, 10, 10]), (0.7, [21, 21, 30, 30]),
                 (0.1, [50, 50, 60, 60])]
    hits = evaluation.match(predicted, truth)
    assert hits == [True, False, True, False]  # a second box on a taken object is a false positive
    # precision at each true positive: 1/1, then 2/3; recall 0.5 then 1.0
    ap = evaluation.average_precision([p[0] for p in predicted], hits, len(truth))
    assert ap == pytest.approx(0.5 * 1.0 + 0.5 * (2 / 3))
    assert evaluation.average_precision([], [], 3) == 0.0
    assert evaluation.iou(np.array([0, 0, 10, 10.0]), np.array([[5, 0, 15, 10.0]]))[0] == pytest.approx(1 / 3)
