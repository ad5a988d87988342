"""Lineage end to end on real parts: a template's local training job writes a model, it is
pulled, converted, quantized and benchmarked; the file is renamed; a new server on the same data
dir still answers the whole chain."""

import hashlib
from pathlib import Path

from fastapi.testclient import TestClient

from server.core.config import Settings
from tests.conftest import make_client
from tests.fakes import models
from tests.plugin.tools import wait_for_run
from tests.server.training.test_jobs_api import create_project, submit, wait_job


def committed_project(client: TestClient) -> dict:
    project = create_project(client, "pytorch-classifier", git=False)
    base = f"/api/projects/{project['id']}/git"
    assert client.post(f"{base}/init", json={}).status_code in (200, 201)
    paths = [e["path"] for e in client.get(f"{base}/status").json()["untracked"]]
    assert client.post(f"{base}/stage", json={"paths": paths}).status_code == 200
    commit = client.post(f"{base}/commit", json={"message": "digits classifier", "author": "A <a@b.c>"})
    assert commit.status_code in (200, 201), commit.text
    return project


def run_tool(client: TestClient, project: dict, tool: str, **body) -> dict:
    started = client.post(f"/api/projects/{project['id']}/tools/{tool}", json=body)
    assert started.status_code == 202, started.text
    run = wait_for_run(client, started.json()["id"])
    assert run["status"] == "succeeded", run["error"]
    return run


def by_kind(graph: dict, kind: str) -> list[dict]:
    return [n for n in graph["nodes"] if n["kind"] == kind]


def make_chain(client: TestClient, project: dict) -> dict:
    """Train (1 epoch), pull, convert (fp16), quantize, benchmark; returns the ids made."""
    job = submit(client, project, command="python train.py --epochs 1")
    done = wait_job(client, job["id"], timeout=120)
    assert done["status"] == "succeeded", done
    pulled = client.post(f"/api/jobs/{job['id']}/artifacts/pull")
    assert pulled.status_code == 200, pulled.text
    onnx = f"artifacts/{job['id']}/model.onnx"
    convert = run_tool(client, project, "convert", model=onnx, output="digits.mnn", fp16=True)
    models.calibration_images(Path(project["path"], "calib"), count=4, size=8)
    quantize = run_tool(client, project, "quantize", model="digits.mnn", output="digits.int8.mnn",
                        calibration="calib", format="GRAY", width=8, height=8, mean=[0.0],
                        normal=[1 / 255])
    bench = run_tool(client, project, "benchmark", model="digits.int8.mnn", loops=3, warmup=1,
                     per_op=False)
    return {"job": done, "convert": convert["id"], "quantize": quantize["id"],
            "bench": bench["id"], "onnx": onnx}


def check_chain(graph: dict, ids: dict, path: str) -> None:
    file_node = graph["nodes"][0]
    assert (file_node["kind"], file_node["data"]["path"]) == ("file", path)
    tool_runs = {n["data"]["tool"]: n for n in by_kind(graph, "tool_run")}
    assert tool_runs["quantize"]["id"] == f"tool_run:{ids['quantize']}"
    assert tool_runs["convert"]["id"] == f"tool_run:{ids['convert']}"
    assert tool_runs["convert"]["data"]["args"]["fp16"] is True
    assert tool_runs["convert"]["data"]["args"]["model"] == ids["onnx"]
    [job] = by_kind(graph, "job")
    assert job["data"]["job_id"] == ids["job"]["id"]
    assert (job["data"]["backend"], job["data"]["command"]) == ("local", "python train.py --epochs 1")
    assert 0 <= job["data"]["metrics"]["acc"] <= 1 and job["data"]["metrics"]["epoch"] == 1
    [commit] = by_kind(graph, "commit")
    assert commit["data"]["sha"] == ids["job"]["commit"] and commit["data"]["message"] == "digits classifier"
    [bench] = by_kind(graph, "run")
    assert bench["id"] == f"run:{ids['bench']}" and bench["data"]["figures"]["median_ms"] > 0
    assert bench["data"]["device"] == "server CPU, 1 thread(s)"
    edges = {(e["source"], e["target"], e["kind"]) for e in graph["edges"]}
    sources = {n["data"]["path"]: n["id"] for n in by_kind(graph, "file")}
    assert (f"commit:{commit['data']['sha']}", job["id"], "built") in edges
    assert (job["id"], sources[ids["onnx"]], "made") in edges
    assert (sources[ids["onnx"]], tool_runs["convert"]["id"], "input") in edges
    assert (sources["digits.mnn"], tool_runs["quantize"]["id"], "input") in edges
    assert (tool_runs["quantize"]["id"], file_node["id"], "made") in edges
    assert (file_node["id"], bench["id"], "measured") in edges


def test_lineage_survives_a_rename_and_a_restart(settings: Settings) -> None:
    with make_client(settings) as client:
        project = committed_project(client)
        ids = make_chain(client, project)
        ops = f"/api/projects/{project['id']}/files/ops"
        assert client.post(ops, json={"op": "mkdir", "path": "final"}).status_code in (200, 201)
        moved = client.post(ops,
                            json={"op": "rename", "path": "digits.int8.mnn", "to": "final/digits-v1.mnn"})
        assert moved.status_code == 200, moved.text
        graph = client.get(f"/api/projects/{project['id']}/lineage",
                           params={"path": "final/digits-v1.mnn"}).json()
        check_chain(graph, ids, "final/digits-v1.mnn")
    with make_client(settings) as client:
        again = client.get(f"/api/projects/{project['id']}/lineage",
                           params={"path": "final/digits-v1.mnn"})
        assert again.json() == graph


def test_a_file_nothing_made_is_alone_and_bad_paths_are_refused(client: TestClient, project: dict) -> None:
    Path(project["path"], "notes.onnx").write_bytes(b"not made here")
    url = f"/api/projects/{project['id']}/lineage"
    graph = client.get(url, params={"path": "notes.onnx"}).json()
    assert [n["kind"] for n in graph["nodes"]] == ["file"] and graph["edges"] == []
    assert graph["nodes"][0]["data"]["sha256"] == hashlib.sha256(b"not made here").hexdigest()
    missing = client.get(url, params={"path": "nope.mnn"})
    assert (missing.status_code, missing.json()["code"]) == (404, "file_not_found")
    escape = client.get(url, params={"path": "../outside.mnn"})
    assert escape.status_code in (403, 422) and escape.json()["code"]
