"""The real PP-OCRv4 pipeline (tests/fakes/ppocr.py) as a project's pipeline, run through the API
as a tool run in a worker: it reads the rendered text and answers as the runtime called
directly."""

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from device_bridge.runtime import pipeline
from tests.device_bridge.test_ppocr_pipeline import LINES, RENDERED, texts
from tests.server.modeltools.conftest import wait_for_run


@pytest.fixture
def project(client: TestClient, ppocr_pipeline: Path) -> dict:
    answer = client.post("/api/projects", json={"name": "ocr", "template": "empty"})
    assert answer.status_code == 201, answer.text
    project = answer.json()
    root = Path(project["path"])
    for path in ppocr_pipeline.parent.iterdir():
        if path.is_file() and path.suffix in (".mnn", ".toml", ".txt"):
            shutil.copy(path, root / path.name)
    (root / "photos").mkdir()
    shutil.copy(ppocr_pipeline.parent / RENDERED, root / "photos" / RENDERED)
    return project


def test_the_ocr_pipeline_runs_as_a_tool_run(client: TestClient, project: dict) -> None:
    body = {"pipeline": "pipeline.toml", "inputs": ["photos"]}
    started = client.post(f"/api/projects/{project['id']}/pipelines/run", json=body)
    assert started.status_code == 202, started.text
    run = wait_for_run(client, started.json()["id"])
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert result["pipeline"] == "pp-ocrv4" and result["failed"] == []
    [ran] = result["inputs"]
    assert texts(ran) == LINES
    root = Path(project["path"])
    expected = pipeline.Runner(pipeline.load(root / "pipeline.toml")).run(root / "photos" / RENDERED)
    assert [s["items"] for s in ran["stages"]] == [s["items"] for s in expected["stages"]]
