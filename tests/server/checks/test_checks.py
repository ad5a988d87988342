"""Performance budgets: measured against their limits through the API, kept per commit, and
run headless by ``mnnwb check`` (table, exit code, JUnit), here and against a live server."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.checks.service import run_checks
from server.core.errors import Invalid
from tests.conftest import LiveServer
from tests.server.checks.conftest import Variants

HOLDS = """
[[budget]]
model = "model.mnn"
reference = "model.onnx"
max_size_mb = 1
min_cosine = 0.9999
max_abs_error = 0.001
max_latency_ms = 10000
max_memory_mb = 1000
loops = 5
"""


@pytest.fixture
def folder(tmp_path: Path, variants: Variants) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    variants.copy_to(root)
    return root


def _by_metric(report) -> dict:
    return {r.metric: r for r in report.results}


def test_a_budget_that_holds_passes(folder: Path) -> None:
    (folder / "mnnwb.toml").write_text(HOLDS)
    report = run_checks(folder)
    assert report.passed is True
    found = _by_metric(report)
    assert set(found) == {"size_mb", "cosine", "max_abs_error", "latency_ms", "memory_mb"}
    assert found["size_mb"].value == pytest.approx((folder / "model.mnn").stat().st_size / 2**20)
    assert found["cosine"].value > 0.9999 and found["latency_ms"].value > 0
    assert report.commit is None and report.clean is False  # not a Git repository


def test_slowed_enlarged_and_quantized_models_fail_on_their_metric(folder: Path) -> None:
    (folder / "mnnwb.toml").write_text('[[budget]]\nmodel = "model.mnn"\nmax_latency_ms = 1e4\nloops = 10\n')
    fast = _by_metric(run_checks(folder))["latency_ms"].value
    size = (folder / "model.mnn").stat().st_size / 2**20
    # The slow model does ~50x the work of the fast one: 3x the fast one's latency is its limit.
    (folder / "mnnwb.toml").write_text(
        f'[[budget]]\nmodel = "slow.mnn"\nmax_latency_ms = {3 * fast}\nmax_size_mb = {2 * size}\nloops = 10\n'
        '[[budget]]\nmodel = "model.int8.mnn"\nreference = "model.onnx"\nmin_cosine = 0.9999\n'
    )
    report = run_checks(folder)
    assert report.passed is False
    failed = {(r.model, r.metric): r for r in report.results if not r.passed}
    assert set(failed) == {("slow.mnn", "latency_ms"), ("slow.mnn", "size_mb"), ("model.int8.mnn", "cosine")}
    assert failed[("slow.mnn", "latency_ms")].value > failed[("slow.mnn", "latency_ms")].limit == 3 * fast
    assert failed[("slow.mnn", "size_mb")].value > 2 * size
    assert 0.9 < failed[("model.int8.mnn", "cosine")].value < 0.9999


def test_a_device_budget_measures_size_and_says_why_latency_is_not(folder: Path) -> None:
    (folder / "mnnwb.toml").write_text(
        '[[budget]]\nmodel = "model.mnn"\ndevice = "pixel"\nmax_size_mb = 1\nmax_latency_ms = 100\n'
    )
    with pytest.raises(Invalid, match="no budgets for device 'local'"):
        run_checks(folder, device="local")
    report = run_checks(folder, device="pixel")
    found = _by_metric(report)
    assert found["size_mb"].passed is True and found["size_mb"].device == "pixel"
    assert found["latency_ms"].passed is False and found["latency_ms"].value is None
    assert "through a running workbench: mnnwb check --server URL" in found["latency_ms"].detail


def _mnnwb(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    code = "import sys; from server.cli import main; sys.exit(main(sys.argv[1:]))"
    root = Path(__file__).resolve().parents[3]
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(root)},
    )


def test_mnnwb_check_exit_codes_table_and_junit(folder: Path, tmp_path: Path) -> None:
    assert _mnnwb("check", str(folder), cwd=tmp_path).returncode == 2  # no mnnwb.toml
    budget = '[[budget]]\nmodel = "model.mnn"\nmax_size_mb = {}\n'
    budget += '[[budget]]\nmodel = "model.fp16.mnn"\nmax_size_mb = 1\n'
    (folder / "mnnwb.toml").write_text(budget.format(1))
    junit = tmp_path / "checks.xml"
    passed = _mnnwb("check", "--junit", str(junit), cwd=folder)
    assert passed.returncode == 0, passed.stderr
    assert "2 passed, 0 failed" in passed.stdout and "model.fp16.mnn" in passed.stdout
    suite = ET.parse(junit).getroot().find("testsuite")  # noqa: S314 - written by the test
    assert (suite.get("tests"), suite.get("failures")) == ("2", "0")
    (folder / "mnnwb.toml").write_text(budget.format(0.001))
    failed = _mnnwb("check", str(folder), "--junit", str(junit), cwd=tmp_path)
    assert failed.returncode == 1
    assert "1 passed, 1 failed" in failed.stdout and "FAIL" in failed.stdout
    failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")  # noqa: S314
    assert failure.get("type") == "size_mb"
    assert "the budget allows at most 0.001" in failure.get("message")
    (folder / "mnnwb.toml").write_text("[[budget]]\nmodel = 3\n")
    broken = _mnnwb("check", str(folder), cwd=tmp_path)
    assert broken.returncode == 2 and "budget 1: model" in broken.stderr


def _commit(client: TestClient, base: str, paths: list[str], message: str) -> str:
    assert client.post(f"{base}/stage", json={"paths": paths}).status_code == 200
    response = client.post(f"{base}/commit", json={"message": message})
    assert response.status_code in (200, 201), response.text
    return response.json()["sha"]


def test_checks_through_the_api_are_kept_per_commit(client: TestClient, variants: Variants) -> None:
    project = client.post("/api/projects", json={"name": "budgets", "template": "empty", "git": False}).json()
    root, base = Path(project["path"]), f"/api/projects/{project['id']}"
    variants.copy_to(root)
    (root / "mnnwb.toml").write_text('[[budget]]\nmodel = "model.mnn"\nmax_size_mb = 1\n')
    assert client.post(f"{base}/git/init", json={}).status_code == 201
    good = _commit(client, f"{base}/git", ["model.mnn", "mnnwb.toml"], "model within budget")
    assert [b["model"] for b in client.get(f"{base}/budgets").json()] == ["model.mnn"]
    report = client.post(f"{base}/checks", json={}).json()
    assert (report["passed"], report["commit"], report["clean"]) == (True, good, True)
    (root / "model.mnn").write_bytes((root / "slow.mnn").read_bytes())
    dirty = client.post(f"{base}/checks", json={}).json()
    assert (dirty["passed"], dirty["clean"], dirty["last_passing"]) == (False, False, good)
    bad = _commit(client, f"{base}/git", ["model.mnn"], "a bigger model")
    report = client.post(f"{base}/checks", json={}).json()
    assert report["results"][0]["metric"] == "size_mb" and report["results"][0]["passed"] is False
    history = {c["commit"]: c for c in client.get(f"{base}/checks/commits").json()}
    assert set(history) == {good, bad}
    assert history[good]["passed"] is True
    assert [f["metric"] for f in history[bad]["failures"]] == ["size_mb"]


def test_mnnwb_check_against_a_running_server(
    live_server: LiveServer, variants: Variants, tmp_path: Path
) -> None:
    import httpx

    created = httpx.post(
        f"{live_server.url}/api/projects",
        json={"name": "remote", "template": "empty"},
        headers=live_server.auth,
    ).json()
    root = Path(created["path"])
    variants.copy_to(root)
    (root / "mnnwb.toml").write_text('[[budget]]\nmodel = "model.mnn"\nmax_size_mb = 0.001\n')
    token = str(live_server.settings.token_file)
    wrong = tmp_path / "wrong-token"
    wrong.write_text("not-the-token\n")
    result = _mnnwb("check", str(root), "--server", live_server.url, "--token-file", token, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "0 passed, 1 failed" in result.stdout
    refused = _mnnwb(
        "check", str(root), "--server", live_server.url, "--token-file", str(wrong), cwd=tmp_path
    )
    assert refused.returncode == 2 and "401" in refused.stderr
