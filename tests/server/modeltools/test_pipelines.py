"""Pipelines through the API (a tool run in a worker) and the command line, on a real photograph,
giving the same answers as the runtime called directly; bad pipelines refused by name."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from device_bridge.runtime import pipeline
from tests.device_bridge.test_pipeline import COINS
from tests.fakes.photos import photo
from tests.server.modeltools.conftest import wait_for_run


@pytest.fixture
def project(client: TestClient, coins_pipeline: Path) -> dict:
    answer = client.post("/api/projects", json={"name": "chain", "template": "empty"})
    assert answer.status_code == 201, answer.text
    project = answer.json()
    root = Path(project["path"])
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, root / path.name)
    shutil.copy(coins_pipeline, root / "pipeline.toml")
    (root / "photos").mkdir()
    shutil.copy(photo(COINS), root / "photos" / COINS)
    (root / "photos" / "broken.png").write_bytes(photo(COINS).read_bytes()[:3000])
    return project


def _run(client: TestClient, project: dict, body: dict):
    return client.post(f"/api/projects/{project['id']}/pipelines/run", json=body)


def test_a_pipeline_runs_as_a_tool_run_and_names_each_input(client: TestClient, project: dict) -> None:
    started = _run(client, project, {"pipeline": "pipeline.toml", "inputs": ["photos"]})
    assert started.status_code == 202, started.text
    run = wait_for_run(client, started.json()["id"])
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert result["pipeline"] == "coins"
    assert result["failed"] == [{"input": "photos/broken.png", "reason": result["failed"][0]["reason"]}]
    assert "cannot be decoded" in result["failed"][0]["reason"]
    [ran] = result["inputs"]
    assert ran["input"] == f"photos/{COINS}"
    expected = pipeline.Runner(pipeline.load(Path(project["path"]) / "pipeline.toml")).run(
        Path(project["path"]) / "photos" / COINS)
    assert [s["items"] for s in ran["stages"]] == [s["items"] for s in expected["stages"]]
    assert set(result["summary"]["stages"]) == {s["id"] for s in ran["stages"]}
    assert result["summary"]["end_to_end"]["median_ms"] == pytest.approx(ran["ms"])


def test_bad_pipelines_and_inputs_are_refused_before_a_run(client: TestClient, project: dict) -> None:
    root = Path(project["path"])
    (root / "bad.toml").write_text("[[stages]]\nid = 'x'\nstep = 'blur'\n")
    refused = _run(client, project, {"pipeline": "bad.toml", "inputs": ["photos"]})
    assert refused.status_code == 422 and refused.json()["code"] == "bad_pipeline", refused.text
    assert refused.json()["where"] == "stages[0].step"
    missing = _run(client, project, {"pipeline": "pipeline.toml", "inputs": ["nowhere"]})
    assert missing.status_code == 422 and missing.json()["code"] == "bad_input_file"
    outside = _run(client, project, {"pipeline": "../pipeline.toml", "inputs": ["photos"]})
    assert outside.status_code in (403, 422)
    extra = _run(client, project, {"pipeline": "pipeline.toml", "inputs": ["photos"], "root": "/"})
    assert extra.status_code == 422


def test_the_command_line_prints_one_json_object_per_input(project: dict) -> None:
    root = Path(project["path"])
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "pipeline", "run", str(root / "pipeline.toml"),
         "--input", str(root / "photos"), "--json"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 1, done.stderr  # one input could not be read: said, and the rest ran
    assert "broken.png: cannot be decoded" in done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]  # nothing else on stdout
    assert len(lines) == 1 and lines[0]["input"].endswith(COINS)
    assert [s["id"] for s in lines[0]["stages"]][-1] == "read"
