"""The datasets routes: every dataset of a project with its counts per class and split, a few
thumbnails and the files skipped; one by path; a folder that is none refused by layout."""

import json
import shutil
from pathlib import Path

from fastapi.testclient import TestClient

from tests.fakes import photo_classifier
from tests.fakes.photos import CAT, photo, truncated


def test_datasets_with_counts_thumbnails_and_skipped_files(client: TestClient, project: dict) -> None:
    root = Path(project["path"])
    photos = photo_classifier.make_dataset(root / "data" / "photos", train=5, val=2)
    truncated(photos / "val" / "cat" / "cat_000.jpg", photos / "val" / "cat" / "cut.jpg")
    (root / "det" / "images").mkdir(parents=True)
    shutil.copy(photo(CAT), root / "det" / "images" / "cat.png")
    (root / "det" / "annotations.json").write_text(json.dumps({
        "images": [{"id": 1, "file_name": "cat.png"}], "categories": [{"id": 1, "name": "cat"}],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [120, 20, 200, 250]}]}))
    (root / "broken").mkdir()
    (root / "broken" / "annotations.json").write_text("{not json")
    (root / "rows.csv").write_text("x,y,label\n1,2,a\n3,4,b\n")

    answer = client.get(f"/api/projects/{project['id']}/datasets")
    assert answer.status_code == 200, answer.text
    found = {d["path"]: d for d in answer.json()}
    assert sorted(found) == ["broken", "data/photos", "det", "rows.csv"]
    images = found["data/photos"]
    assert (images["kind"], images["task"], images["eval_split"]) == ("image_folder", "classification", "val")
    classes = images["classes"]
    assert images["counts"] == {"train": {c: 5 for c in classes}, "val": {c: 2 for c in classes}}
    assert images["files"] == {"train": 20, "val": 8} and images["samples"] == 28
    assert images["skipped_count"] == 1 and images["skipped"][0]["file"] == "val/cat/cut.jpg"
    assert images["thumbnails"]["cat"] == [f"data/photos/val/cat/cat_00{i}" for i in ("0.jpg", "1.png")]
    detection = found["det"]
    assert (detection["task"], detection["counts"], detection["thumbnails"]) == (
        "detection", {"all": {"cat": 1}}, {"cat": ["det/images/cat.png"]})
    assert found["rows.csv"]["input_kind"] == "tensor" and found["rows.csv"]["classes"] == ["a", "b"]
    assert "not readable COCO JSON" in found["broken"]["error"]
    # the raw file route serves a thumbnail
    raw = client.get(f"/api/projects/{project['id']}/files/raw",
                     params={"path": images["thumbnails"]["cat"][1]})
    assert raw.status_code == 200 and raw.content[:4] == b"\x89PNG"

    one = client.get(f"/api/projects/{project['id']}/dataset", params={"path": "data/photos"})
    assert one.status_code == 200 and one.json() == images
    refused = client.get(f"/api/projects/{project['id']}/dataset", params={"path": "data"})
    assert refused.status_code == 422 and refused.json()["code"] == "not_a_dataset"
    assert "class folders of images" in refused.json()["detail"]
