"""The built-in algorithms: listed with real figures, installed into new projects, and each
demo run as installed, on this machine and on a real device agent process."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from device_bridge.deploy import deploy
from device_bridge.links import Identity
from server.market.builtin.real import CATALOG
from server.market.package import read_manifest
from tests.device_bridge.harness import AgentProcess, HubServer
from tests.device_bridge.test_agent_runs import attach, exit_of, run
from tests.waiting import wait_until

BUILTINS = {"digits": 0.9, "breast-cancer": 0.9, "activity": 0.9, "vibration-anomaly": 0.9}
pytestmark = pytest.mark.usefixtures("builtins_ready")


def install_new(client: TestClient, package: str, name: str) -> dict:
    response = client.post(f"/api/market/{package}/versions/1.0.0/install",
                           json={"new_project": name})
    assert response.status_code == 201, response.text
    return response.json()


def demo_lines(package: str, folder: Path) -> list[str]:
    expected = json.loads((folder / "samples" / "expected.json").read_text())
    assert len(set(expected)) > 1, "the samples show more than one answer"
    return [f"(expected {answer})" for answer in expected]


def test_the_market_lists_each_builtin_with_its_measured_figures(client: TestClient):
    entries = {e["id"]: e for e in client.get("/api/market").json() if e["source"] == "builtin"}
    # The real pretrained algorithms are built-ins too (tests/server/market/test_real_packages.py).
    assert sorted(entries) == sorted([*BUILTINS, *(listed.id for listed in CATALOG)])
    for package, floor in BUILTINS.items():
        entry = entries[package]
        assert entry["accuracy"] >= floor and entry["latency_ms"] > 0 and entry["size_bytes"] > 0
        assert entry["versions"] == ["1.0.0"] and entry["latest"] == "1.0.0"
    found = client.get("/api/market", params={"q": "digit", "task": "image-classification"})
    assert [e["id"] for e in found.json()] == ["digits"]
    assert client.get("/api/market", params={"source": "nowhere"}).json()["code"] == "source_not_found"


def test_a_card_has_the_readme_files_and_metrics(client: TestClient):
    card = client.get("/api/market/vibration-anomaly", params={"source": "builtin"}).json()
    assert card["readme"].startswith("# Vibration anomaly detector")
    [version] = card["versions"]
    assert {f["role"] for f in version["files"]} >= {"model", "source-model", "demo", "sample"}
    assert version["outputs"][0]["threshold"] > 0
    assert "held-out normal" in version["metrics"]["eval_set"]
    assert client.get("/api/market/nothing").json()["code"] == "package_not_found"


def test_each_builtin_installs_into_a_new_project_and_its_demo_runs_there(client: TestClient):
    for package in BUILTINS:
        result = install_new(client, package, f"try-{package}")
        assert result["demo"] == f"market/{package}/demo.py"
        root = Path(client.get(f"/api/projects/{result['project_id']}").json()["path"])
        assert f"market/{package}/model.mnn" in result["files"]
        assert read_manifest(root / "market" / package).id == package
        done = subprocess.run([sys.executable, result["demo"]], cwd=root, capture_output=True,
                              text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        for line in demo_lines(package, root / "market" / package):
            assert line in done.stdout
        correct = int(done.stdout.split(f"{package}: ")[1].split("/")[0])
        assert correct >= 8, done.stdout


def test_installing_twice_into_one_project_is_a_conflict(client: TestClient):
    result = install_new(client, "digits", "twice")
    again = client.post("/api/market/digits/versions/1.0.0/install",
                        json={"project_id": result["project_id"]})
    assert (again.status_code, again.json()["code"]) == (409, "already_installed")
    assert client.post("/api/market/digits/versions/9.9.9/install",
                       json={"project_id": result["project_id"]}).json()["code"] == "version_not_found"
    both = client.post("/api/market/digits/versions/1.0.0/install",
                       json={"project_id": result["project_id"], "new_project": "x"})
    assert both.status_code == 422


def test_each_installed_demo_runs_on_a_device_agent(client: TestClient, tmp_path: Path):
    server = HubServer()
    server.book.codes["code-m"] = Identity("dev-m", "market-board")
    agent = AgentProcess(server.url, tmp_path / "agent", "code-m", "market-board")
    try:
        wait_until(lambda: "connected to" in agent.log(), what="the agent to connect")
        for package in BUILTINS:
            result = install_new(client, package, f"device-{package}")
            root = Path(client.get(f"/api/projects/{result['project_id']}").json()["path"])
            sid = attach(server, f"p-{package}", "dev-m")
            server.call(deploy(server.hub, f"p-{package}", sid, root))
            run(server, f"p-{package}", sid, [result["demo"]])
            assert exit_of(server, sid, timeout=60)["code"] == 0, server.recorder.output(sid)
            output = server.recorder.output(sid)
            for line in demo_lines(package, root / "market" / package):
                assert line in output
            assert "samples as expected" in output
    finally:
        agent.kill()
        server.close()


def test_a_tampered_builtin_file_is_refused_with_nothing_written(client: TestClient,
                                                                 builtins_ready: Path):
    model = builtins_ready / "activity" / "model.mnn"
    data = model.read_bytes()
    model.write_bytes(data[:100] + bytes([data[100] ^ 0xFF]) + data[101:])
    refused = client.post("/api/market/activity/versions/1.0.0/install",
                          json={"new_project": "tampered"})
    assert (refused.status_code, refused.json()["code"]) == (422, "checksum_mismatch")
    assert "model.mnn" in refused.json()["detail"]
    assert [p["name"] for p in client.get("/api/projects").json()] == []


def test_an_installed_builtin_republishes_to_the_registry_and_still_runs(client: TestClient):
    first = install_new(client, "breast-cancer", "tuned")
    files = first["files"]
    published = client.post(f"/api/projects/{first['project_id']}/publish", json={
        "id": "tuned-cancer", "version": "2.0.0", "files": files})
    assert published.status_code == 201, published.text
    version = published.json()
    assert {f["path"] for f in version["files"]} == {
        f.removeprefix("market/breast-cancer/") for f in files} - {"algorithm.toml"}
    assert version["outputs"][0]["labels"] == ["malignant", "benign"]
    assert version["metrics"]["accuracy"] is None, "figures of the built-in do not carry over"
    again = client.post("/api/market/tuned-cancer/versions/2.0.0/install",
                        json={"source": "registry", "new_project": "from-registry"})
    assert again.status_code == 201, again.text
    root = Path(client.get(f"/api/projects/{again.json()['project_id']}").json()["path"])
    done = subprocess.run([sys.executable, again.json()["demo"]], cwd=root, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "tuned-cancer: " in done.stdout and "samples as expected" in done.stdout
    outside = client.post(f"/api/projects/{first['project_id']}/publish", json={
        "id": "x", "version": "1", "files": ["market/breast-cancer/algorithm.toml", "README.md"]})
    assert outside.json()["code"] == "outside_package"
