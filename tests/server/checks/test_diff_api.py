"""Model diff through the API: two files, or one file at two commits."""

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.plugin.tools import wait_for_run
from tests.server.checks.conftest import Variants


@pytest.fixture
def project(client: TestClient, variants: Variants) -> dict:
    response = client.post("/api/projects", json={"name": "vision", "template": "empty", "git": False})
    assert response.status_code == 201, response.text
    variants.copy_to(Path(response.json()["path"]))
    return response.json()


def _diff(client: TestClient, project: dict, body: dict) -> dict:
    response = client.post(f"/api/projects/{project['id']}/tools/diff", json={"loops": 3, **body})
    assert response.status_code == 202, response.text
    run = wait_for_run(client, response.json()["id"])
    assert run["status"] == "succeeded", run["error"]
    assert run["tool"] == "diff"
    return run["result"]


def _convs(result: dict) -> list[dict]:
    return [row for row in result["layers"] if row["type"] == "Convolution"]


def test_fp32_against_int8_shows_the_quantized_layers(client: TestClient, project: dict) -> None:
    result = _diff(client, project, {"a": "model.mnn", "b": "model.int8.mnn"})
    assert result["size"]["a"] > result["size"]["b"] > 0
    assert result["latency"]["a_median_ms"] > 0 and result["latency"]["b_median_ms"] > 0
    assert [row["name"] for row in result["outputs"]] == ["output"]
    assert 0.9 < result["outputs"][0]["cosine"] < 1.0
    convs = _convs(result)
    assert len(convs) == 3
    for row in convs:
        assert 0.9 < row["cosine"] < 1.0 and row["max_abs_error"] > 0
        assert row["a_ms"] > 0 and row["b_ms"] > 0
        assert row["delta_ms"] == pytest.approx(row["b_ms"] - row["a_ms"])
    changed = {row["name"]: row for row in result["ops_changed"]}
    assert {row["name"] for row in convs} <= set(changed)
    assert all(changed[r["name"]]["b_quantized"] and not changed[r["name"]]["a_quantized"] for r in convs)
    assert any(row["name"] == "(outside ops)" for row in result["layers"])


def test_identical_models_are_exact(client: TestClient, project: dict) -> None:
    root = Path(project["path"])
    shutil.copy(root / "model.mnn", root / "copy.mnn")
    result = _diff(client, project, {"a": "model.mnn", "b": "copy.mnn"})
    assert result["outputs"][0]["max_abs_error"] == 0.0
    measured = [row for row in result["layers"] if row["cosine"] is not None]
    assert len(measured) >= 3
    assert all(row["max_abs_error"] == 0.0 and row["cosine"] == pytest.approx(1.0) for row in measured)
    assert result["ops_changed"] == [] and result["ops_only_in_a"] == result["ops_only_in_b"] == []


def test_weight_variants_against_the_onnx_reference(client: TestClient, project: dict) -> None:
    for variant in ("model.fp16.mnn", "model.wq8.mnn"):
        result = _diff(client, project, {"a": "model.mnn", "b": variant, "reference": "model.onnx"})
        assert result["reference"]["a"]["max_abs_error"] < 1e-4
        assert result["reference"]["a"]["max_abs_error"] < result["reference"]["b"]["max_abs_error"]
        assert 0.99 < result["outputs"][0]["cosine"] < 1.0
        assert all(row["cosine"] < 1.0 for row in _convs(result))


def test_one_file_at_two_commits(client: TestClient, project: dict) -> None:
    base, root = f"/api/projects/{project['id']}/git", Path(project["path"])
    assert client.post(f"{base}/init", json={}).status_code == 201

    def commit(message: str) -> None:
        assert client.post(f"{base}/stage", json={"paths": ["model.mnn"]}).status_code == 200
        assert client.post(f"{base}/commit", json={"message": message}).status_code in (200, 201)

    commit("fp32")
    shutil.copy(root / "model.int8.mnn", root / "model.mnn")
    commit("int8")
    result = _diff(client, project, {"a": "model.mnn", "rev_a": "HEAD^", "rev_b": "HEAD"})
    assert result["size"]["a"] > result["size"]["b"]
    assert all(0.9 < row["cosine"] < 1.0 for row in _convs(result))
    # The working tree against the last commit: the same file, so exact.
    same = _diff(client, project, {"a": "model.mnn", "rev_a": "HEAD"})
    assert same["outputs"][0]["max_abs_error"] == 0.0


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"a": "model.mnn"}, 422, "invalid"),
        ({"a": "model.mnn", "b": "model.onnx"}, 422, "bad_model_file"),
        ({"a": "model.mnn", "b": "../outside.mnn"}, 403, "path_escape"),
        ({"a": "model.mnn", "b": "missing.mnn"}, 422, "bad_model_file"),
    ],
)
def test_bad_requests(client: TestClient, project: dict, body: dict, status: int, code: str) -> None:
    response = client.post(f"/api/projects/{project['id']}/tools/diff", json=body)
    assert (response.status_code, response.json()["code"]) == (status, code), response.text
