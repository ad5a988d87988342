"""A pipeline evaluated end to end on a labelled set through the API: the real PP-OCRv4 pipeline
(tests/fakes/ppocr.py) on rendered text whose labels are known, one of them deliberately wrong;
sets and metrics that cannot be used are refused by name before any worker starts."""

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.device_bridge.test_ppocr_pipeline import LINES, RENDERED, TURNED, distance
from tests.server.modeltools.conftest import wait_for_run

READS = " ".join(LINES)  # the lines a picture holds, joined by a space, top line first
WRONG = "MNN Workbench 2025 Pipelines on devices"


@pytest.fixture
def project(client: TestClient, ppocr_pipeline: Path) -> dict:
    project = client.post("/api/projects", json={"name": "ocr-eval", "template": "empty"}).json()
    root = Path(project["path"])
    for path in ppocr_pipeline.parent.iterdir():
        if path.is_file() and path.suffix in (".mnn", ".toml", ".txt"):
            shutil.copy(path, root / path.name)
    labelled = root / "labelled"
    labelled.mkdir()
    for name in (RENDERED, TURNED):
        shutil.copy(ppocr_pipeline.parent / name, labelled / name)
    shutil.copy(ppocr_pipeline.parent / RENDERED, labelled / "mislabelled.png")
    return project


def _evaluate(client: TestClient, project: dict, labels: str, **body: str) -> dict:
    (Path(project["path"]) / "labelled" / "labels.csv").write_text(labels)
    started = client.post(f"/api/projects/{project['id']}/pipelines/evaluate",
                          json={"pipeline": "pipeline.toml", "dataset": "labelled", **body})
    assert started.status_code == 202, started.text
    run = wait_for_run(client, started.json()["id"], 180.0)
    assert run["status"] == "succeeded", run["error"]
    return run["result"]["evaluation"]


def test_rendered_text_labelled_right_reads_at_character_accuracy_one(
    client: TestClient, project: dict
) -> None:
    labels = f"file,text\n{RENDERED},{READS}\n{TURNED},{' '.join(LINES[::-1])}\nmislabelled.png,{READS}\n"
    evaluation = _evaluate(client, project, labels)
    assert (evaluation["metric"], evaluation["dataset"]) == ("char_accuracy", "labelled")
    assert (evaluation["count"], evaluation["labels_file"]) == (3, "labels.csv")
    assert evaluation["value"] == 1.0 and evaluation["exact_match"] == 1.0
    assert all(s["got"] == s["expected"] and s["score"] == 1.0 for s in evaluation["samples"])
    assert evaluation["median_ms"] > 0


def test_a_wrong_label_lowers_the_figure_and_its_row_shows_it(client: TestClient, project: dict) -> None:
    labels = f"file,text\n{RENDERED},{READS}\n{TURNED},{' '.join(LINES[::-1])}\nmislabelled.png,{WRONG}\n"
    evaluation = _evaluate(client, project, labels, metric="char_accuracy")
    edits = distance(READS, WRONG)
    assert edits == 2
    total = len(READS) + len(" ".join(LINES[::-1])) + len(WRONG)
    assert evaluation["value"] == pytest.approx(1 - edits / total)
    assert evaluation["exact_match"] == pytest.approx(2 / 3)
    rows = {s["input"]: s for s in evaluation["samples"]}
    wrong = rows["labelled/mislabelled.png"]
    assert (wrong["expected"], wrong["got"], wrong["exact"]) == (WRONG, READS, False)
    assert wrong["score"] == pytest.approx(1 - edits / len(WRONG))
    assert rows[f"labelled/{RENDERED}"]["score"] == 1.0


@pytest.mark.parametrize(
    ("labels", "body", "code", "says"),
    [
        (None, {}, "bad_dataset", "no labels file"),
        (f"file,text\n{RENDERED},{READS}\n", {}, "bad_dataset", "has no label"),
        (f"file,text\nmissing.png,x\n{RENDERED},{READS}\n", {}, "bad_dataset", "missing.png is not an image"),
        (f"name,text\n{RENDERED},{READS}\n", {}, "bad_dataset", "file,text"),
        (f"file,text\n{RENDERED},x\n", {"metric": "accuracy"}, "bad_metric",
         "'accuracy' does not fit the last stage 'read', which gives text"),
        (f"file,text\n{RENDERED},x\n", {"metric": "bleu"}, "bad_metric", "'bleu' is not one of"),
    ],
)
def test_a_set_or_metric_that_cannot_be_used_is_refused_by_name(
    client: TestClient, project: dict, labels: str | None, body: dict, code: str, says: str
) -> None:
    if labels is not None:
        (Path(project["path"]) / "labelled" / "labels.csv").write_text(labels)
    answer = client.post(f"/api/projects/{project['id']}/pipelines/evaluate",
                         json={"pipeline": "pipeline.toml", "dataset": "labelled", **body})
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == code and says in answer.json()["detail"], answer.json()
    assert client.get(f"/api/projects/{project['id']}/tool-runs").json() == []  # no worker started
