"""Publishing to the team registry: a model a template's training job made and the converter
turned into .mnn, published with its lineage, read back, installed elsewhere; versions are
immutable; tampered registry files are refused."""

from pathlib import Path

from fastapi.testclient import TestClient

from server.market import blobs
from tests.server.lineage.test_lineage import by_kind, committed_project, run_tool
from tests.server.training.test_jobs_api import submit, wait_job


def create_project(client: TestClient, name: str) -> dict:
    response = client.post("/api/projects", json={"name": name, "template": "empty"})
    assert response.status_code == 201, response.text
    return response.json()


def trained_and_converted(client: TestClient) -> tuple[dict, dict, dict]:
    project = committed_project(client)
    job = wait_job(client, submit(client, project, command="python train.py --epochs 1")["id"],
                   timeout=120)
    assert job["status"] == "succeeded", job
    assert client.post(f"/api/jobs/{job['id']}/artifacts/pull").status_code == 200
    convert = run_tool(client, project, "convert", model=f"artifacts/{job['id']}/model.onnx",
                       output="digits.mnn", fp16=True)
    run_tool(client, project, "benchmark", model="digits.mnn", loops=5, warmup=1, threads=1,
             per_op=False)
    Path(project["path"], "NOTES.md").write_text("# Team digits\n\nOne epoch.\n")
    return project, job, convert


def publish(client: TestClient, project: dict, version: str, files: list[str]) -> dict:
    response = client.post(f"/api/projects/{project['id']}/publish", json={
        "id": "team-digits", "version": version, "files": files, "name": "Team digits",
        "task": "image-classification", "summary": "digits, trained here"})
    return {"status": response.status_code, **response.json()}


def test_a_trained_and_converted_model_is_published_with_its_lineage(client: TestClient,
                                                                     settings) -> None:
    project, job, convert = trained_and_converted(client)
    onnx = f"artifacts/{job['id']}/model.onnx"
    published = publish(client, project, "1.0.0", ["digits.mnn", onnx, "NOTES.md"])
    assert published["status"] == 201, published
    assert published["publisher"] == "local" or published["publisher"]
    # The job's file is packaged as the job wrote it, not at the path it was pulled to.
    assert {f["path"]: f["role"] for f in published["files"]} == {
        "digits.mnn": "model", "model.onnx": "source-model", "NOTES.md": "other"}
    again = publish(client, project, "1.0.0", ["digits.mnn"])
    assert (again["status"], again["code"]) == (409, "version_exists")

    card = client.get("/api/market/team-digits", params={"source": "registry"}).json()
    assert (card["source"], card["latest"], card["task"]) == ("registry", "1.0.0",
                                                              "image-classification")
    [latency] = card["versions"][0]["metrics"]["latency"]
    assert (latency["threads"], latency["runs"]) == (1, 5) and latency["median_ms"] > 0
    assert card["latency_ms"] == latency["median_ms"]
    assert card["size_bytes"] == Path(project["path"], "digits.mnn").stat().st_size
    graph = card["versions"][0]["lineage"]
    [job_node] = by_kind(graph, "job")
    assert job_node["data"]["job_id"] == job["id"]
    [commit] = by_kind(graph, "commit")
    assert commit["data"]["sha"] == job["commit"]
    [tool] = by_kind(graph, "tool_run")
    assert tool["id"] == f"tool_run:{convert['id']}"
    assert tool["data"]["args"]["fp16"] is True and tool["data"]["args"]["model"] == onnx

    other = create_project(client, "consumer")
    installed = client.post("/api/market/team-digits/versions/1.0.0/install",
                            json={"source": "registry", "project_id": other["id"]})
    assert installed.status_code == 201, installed.text
    copied = Path(other["path"], "market", "team-digits", "digits.mnn")
    assert copied.read_bytes() == Path(project["path"], "digits.mnn").read_bytes()

    # A blob changed on disk after publishing is refused, and nothing reaches the project.
    entry = next(f for f in published["files"] if f["path"] == "digits.mnn")
    blob = blobs.blob_path(settings, entry["sha256"])
    data = blob.read_bytes()
    blob.write_bytes(bytes([data[0] ^ 0xFF]) + data[1:])
    third = create_project(client, "third")
    refused = client.post("/api/market/team-digits/versions/1.0.0/install",
                          json={"source": "registry", "project_id": third["id"]})
    assert (refused.status_code, refused.json()["code"]) == (422, "checksum_mismatch")
    assert not Path(third["path"], "market").exists()


def test_versions_are_deprecated_and_deleted_with_their_unused_files(client: TestClient,
                                                                      settings) -> None:
    project = create_project(client, "pub")
    Path(project["path"], "m.mnn").write_bytes(b"not really a model, but bytes")
    first = publish(client, project, "1.0.0", ["m.mnn"])
    assert first["status"] == 201, first
    Path(project["path"], "m.mnn").write_bytes(b"the second version's bytes")
    assert publish(client, project, "1.10.0", ["m.mnn"])["status"] == 201
    assert publish(client, project, "1.9.0", ["m.mnn"])["status"] == 201
    [entry] = [e for e in client.get("/api/market", params={"source": "registry"}).json()]
    assert entry["versions"] == ["1.0.0", "1.9.0", "1.10.0"] and entry["latest"] == "1.10.0"

    url = "/api/market/team-digits/versions/1.0.0"
    deprecated = client.post(f"{url}/deprecate", json={"deprecated": True})
    assert deprecated.status_code == 200 and deprecated.json()["deprecated"] is True
    blob = blobs.blob_path(settings, first["files"][0]["sha256"])
    assert blob.is_file()
    assert client.delete(url).status_code == 204
    assert not blob.exists()
    assert client.delete(url).json()["code"] == "version_not_found"
    missing = client.post(f"/api/projects/{project['id']}/publish", json={
        "id": "x", "version": "1", "files": ["nothing.mnn"]})
    assert (missing.status_code, missing.json()["code"]) == (404, "file_not_found")
    escape = client.post(f"/api/projects/{project['id']}/publish", json={
        "id": "x", "version": "1", "files": ["../outside.mnn"]})
    assert escape.status_code == 403
