"""Pipeline budgets (``[[pipeline_budget]]``): the generated three-model pipeline run by the checks
against its end-to-end and per-stage limits, through ``mnnwb check`` and the API, kept per commit
like model budgets; bad tables refused by name."""

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.checks.service import run_checks
from server.core.errors import Invalid
from tests.device_bridge.test_pipeline import COINS
from tests.fakes.photos import photo

HOLDS = """
[[pipeline_budget]]
pipeline = "chain/pipeline.toml"
inputs = ["photos"]
max_latency_ms = 100000
stages = { detect = 100000, read = 100000 }
loops = 2
"""


def _chain(root: Path, coins_pipeline: Path) -> None:
    (root / "chain").mkdir(parents=True)
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, root / "chain" / path.name)
    shutil.copy(coins_pipeline, root / "chain" / "pipeline.toml")
    (root / "photos").mkdir()
    shutil.copy(photo(COINS), root / "photos" / COINS)


@pytest.fixture
def folder(tmp_path: Path, coins_pipeline: Path) -> Path:
    root = tmp_path / "proj"
    _chain(root, coins_pipeline)
    return root


def test_a_pipeline_budget_that_holds_passes_per_stage(folder: Path) -> None:
    (folder / "mnnwb.toml").write_text(HOLDS)
    report = run_checks(folder)
    assert report.passed is True, report
    assert [(r.model, r.stage, r.metric) for r in report.results] == [
        ("chain/pipeline.toml", None, "latency_ms"),
        ("chain/pipeline.toml", "detect", "latency_ms"),
        ("chain/pipeline.toml", "read", "latency_ms"),
    ]
    whole, detect, read = (r.value for r in report.results)
    assert 0 < detect < whole and 0 < read < whole


def test_a_stage_over_its_limit_fails_and_a_missing_stage_says_so(folder: Path) -> None:
    (folder / "mnnwb.toml").write_text(
        '[[pipeline_budget]]\npipeline = "chain/pipeline.toml"\ninputs = ["photos/coins.png"]\n'
        "loops = 1\nstages = { read = 0.0001, ocr = 5 }\n"
    )
    report = run_checks(folder)
    read, ocr = report.results
    assert report.passed is False
    assert read.stage == "read" and read.passed is False and read.value > read.limit == 0.0001
    assert ocr.value is None and ocr.detail == "the pipeline has no stage 'ocr'"


def test_a_pipeline_that_cannot_run_fails_every_limit_with_why(folder: Path) -> None:
    (folder.parent / "elsewhere.mnn").write_bytes(b"")
    (folder / "mnnwb.toml").write_text(
        '[[pipeline_budget]]\npipeline = "chain/pipeline.toml"\ninputs = ["photos"]\nmax_latency_ms = 1000\n'
        'stages = { detect = 10 }\nvariants = { detect = { model = "../../elsewhere.mnn" } }\n'
    )
    results = run_checks(folder).results
    assert [r.value for r in results] == [None, None]
    assert all("variants.detect.model" in (r.detail or "") and "outside" in (r.detail or "") for r in results)


@pytest.mark.parametrize(
    ("table", "where"),
    [
        ('pipeline = "chain/pipeline.toml"\ninputs = ["photos"]\n', "set max_latency_ms or stages"),
        ('pipeline = "chain/pipeline.toml"\ninputs = []\nmax_latency_ms = 1\n', "pipeline budget 1: inputs"),
        ('pipeline = "a.toml"\ninputs = ["photos"]\nmax_latency = 1\n', "pipeline budget 1: max_latency"),
        ('pipeline = "a.toml"\ninputs = ["photos"]\nloops = 65\nmax_latency_ms = 1\n', "at most 64"),
    ],
)
def test_a_malformed_pipeline_budget_is_refused_by_name(folder: Path, table: str, where: str) -> None:
    (folder / "mnnwb.toml").write_text(f"[[pipeline_budget]]\n{table}")
    with pytest.raises(Invalid) as raised:
        run_checks(folder)
    assert where in raised.value.detail, raised.value.detail


def test_mnnwb_check_prints_each_stage_and_writes_junit(folder: Path, tmp_path: Path) -> None:
    (folder / "mnnwb.toml").write_text(HOLDS.replace("read = 100000", "read = 0.0001"))
    junit = tmp_path / "checks.xml"
    done = subprocess.run([sys.executable, "-m", "server.cli", "check", str(folder), "--junit", str(junit)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert "chain/pipeline.toml › read" in done.stdout and "2 passed, 1 failed" in done.stdout
    failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")  # noqa: S314 - written here
    assert failure.get("type") == "latency_ms" and "at most 0.0001" in failure.get("message")


def _commit(client: TestClient, base: str, paths: list[str], message: str) -> str:
    assert client.post(f"{base}/stage", json={"paths": paths}).status_code == 200
    response = client.post(f"{base}/commit", json={"message": message})
    assert response.status_code in (200, 201), response.text
    return response.json()["sha"]


def test_pipeline_checks_through_the_api_are_kept_per_commit(
    client: TestClient, coins_pipeline: Path
) -> None:
    body = {"name": "pipeline-budgets", "template": "empty", "git": False}
    project = client.post("/api/projects", json=body).json()
    root, base = Path(project["path"]), f"/api/projects/{project['id']}"
    _chain(root, coins_pipeline)
    (root / "mnnwb.toml").write_text(HOLDS)
    assert client.post(f"{base}/git/init", json={}).status_code == 201
    good = _commit(client, f"{base}/git", ["chain", "photos", "mnnwb.toml"], "a pipeline within budget")
    report = client.post(f"{base}/checks", json={}).json()
    assert (report["passed"], report["commit"], report["clean"]) == (True, good, True), report
    assert [r["stage"] for r in report["results"]] == [None, "detect", "read"]
    # A stage's model changed on disk: the result is not HEAD's any more.
    recogniser = root / "chain" / "recogniser.mnn"
    recogniser.write_bytes(recogniser.read_bytes() + b"\0")
    assert client.post(f"{base}/checks", json={}).json()["clean"] is False
    subprocess.run(["git", "checkout", "--", "chain/recogniser.mnn"], cwd=root, check=True)
    (root / "mnnwb.toml").write_text(HOLDS.replace("read = 100000", "read = 0.0001"))
    bad = _commit(client, f"{base}/git", ["mnnwb.toml"], "a tighter budget for the recogniser")
    failing = client.post(f"{base}/checks", json={}).json()
    assert (failing["passed"], failing["clean"], failing["last_passing"]) == (False, True, good)
    history = {c["commit"]: c for c in client.get(f"{base}/checks/commits").json()}
    assert history[good]["passed"] is True
    assert [(f["model"], f["stage"]) for f in history[bad]["failures"]] == [("chain/pipeline.toml", "read")]
