"""A pipeline run on a paired device (``device_id``): a real agent process runs it and answers
what a run here answers; the command line asks the server for the same; a device lost mid-run
ends the run with a named error and the server stays up."""

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from device_bridge.runtime import pipeline
from tests.conftest import LiveServer
from tests.device_bridge.harness import AgentProcess
from tests.device_bridge.test_pipeline import COINS
from tests.fakes.photos import photo
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(600)
MANY = 150  # inputs: the run lasts while the agent is stopped under it


def _post(live: LiveServer, path: str, body: dict) -> httpx.Response:
    return httpx.post(f"{live.url}{path}", json=body, headers=live.auth, timeout=300)


def _get(live: LiveServer, path: str) -> httpx.Response:
    return httpx.get(f"{live.url}{path}", headers=live.auth, timeout=60)


def _finished(live: LiveServer, run_id: str, timeout: float = 300) -> dict:
    return wait_until(lambda: (run := _get(live, f"/api/tool-runs/{run_id}").json())["status"]
                      not in ("queued", "running") and run, timeout, f"tool run {run_id} to end")


@pytest.fixture
def project(live_server: LiveServer, coins_pipeline: Path) -> dict:
    created = _post(live_server, "/api/projects", {"name": "chain", "template": "empty"}).json()
    root = Path(created["path"])
    (root / "chain").mkdir()
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, root / "chain" / path.name)
    shutil.copy(coins_pipeline, root / "chain" / "pipeline.toml")
    (root / "photos").mkdir()
    shutil.copy(photo(COINS), root / "photos" / COINS)
    return created


@pytest.fixture
def device(live_server: LiveServer, tmp_path: Path) -> Iterator[tuple[str, AgentProcess]]:
    code = _post(live_server, "/api/devices/pairings", {"name": "pixel"}).json()["token"]
    agent = AgentProcess(live_server.url, tmp_path / "agent", code, "pixel")
    try:
        listed = wait_until(lambda: [d for d in _get(live_server, "/api/devices").json() if d["online"]],
                            what="the agent to come online")
        yield listed[0]["id"], agent
    finally:
        agent.kill()


def test_a_pipeline_on_a_device_answers_as_here(
    live_server: LiveServer, project: dict, device: tuple[str, AgentProcess], tmp_path: Path
) -> None:
    device_id, agent = device
    body = {"pipeline": "chain/pipeline.toml", "inputs": ["photos"], "device_id": device_id}
    started = _post(live_server, f"/api/projects/{project['id']}/pipelines/run", body)
    assert started.status_code == 202, started.text
    run = _finished(live_server, started.json()["id"])
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert result["device"] == {"id": device_id, "name": "pixel"}
    [there] = result["inputs"]
    assert there["input"] == f"photos/{COINS}"
    root = Path(project["path"])
    here = pipeline.Runner(pipeline.load(root / "chain" / "pipeline.toml")).run(root / "photos" / COINS)
    assert [s["id"] for s in there["stages"]] == [s["id"] for s in here["stages"]]
    assert [s["items"] for s in there["stages"]] == [s["items"] for s in here["stages"]]
    assert set(result["summary"]["stages"]) == {s["id"] for s in here["stages"]}
    # The device measured each model stage's session memory, as a run here does.
    memory = {s["id"]: s["memory_mb"] for s in there["stages"]}
    assert memory["detect"] > 0 and memory["read"] > 0 and memory["boxes"] is None, memory
    assert result["summary"]["stages"]["read"]["memory_mb"] == memory["read"]
    assert result["summary"]["end_to_end"]["memory_mb"] == there["memory_mb"] > 0
    # The pipeline's folder and the input went to the project's session folder on the device.
    [files] = list((agent.home / "sessions").rglob("files"))
    assert sorted(p.relative_to(files).as_posix() for p in files.rglob("*") if p.is_file()) == sorted(
        [f"chain/{p.name}" for p in (root / "chain").iterdir()] + [f"photos/{COINS}"])

    # The command line asks the server for the same, one JSON object per input.
    token = tmp_path / "token"
    token.write_text(live_server.token)
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "pipeline", "run", str(root / "chain" / "pipeline.toml"),
         "--input", str(root / "photos"), "--device", device_id, "--server", live_server.url,
         "--token-file", str(token), "--json"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    [line] = [json.loads(line) for line in done.stdout.splitlines()]
    assert line["input"] == f"photos/{COINS}"
    assert [s["items"] for s in line["stages"]] == [s["items"] for s in here["stages"]]


def _pipeline_task(agent: AgentProcess) -> psutil.Process | None:
    """The agent's child running the pipeline (``device_bridge.agent.mnn_tasks``)."""
    for child in psutil.Process(agent.proc.pid).children(recursive=True):
        try:
            if "device_bridge.agent.mnn_tasks" in " ".join(child.cmdline()):
                return child
        except psutil.NoSuchProcess:
            continue
    return None


def test_a_device_lost_mid_run_fails_the_run_by_name(
    live_server: LiveServer, project: dict, device: tuple[str, AgentProcess]
) -> None:
    device_id, agent = device
    root = Path(project["path"])
    (root / "many").mkdir()
    for index in range(MANY):
        shutil.copy(photo(COINS), root / "many" / f"{index:03}.png")
    body = {"pipeline": "chain/pipeline.toml", "inputs": ["many"], "device_id": device_id}
    started = _post(live_server, f"/api/projects/{project['id']}/pipelines/run", body).json()
    task = wait_until(lambda: _pipeline_task(agent), timeout=120, what="the pipeline to run on the device")
    agent.kill()
    try:
        run = _finished(live_server, started["id"])
    finally:
        if task.is_running():
            task.kill()
    assert run["status"] == "failed" and run["error_code"] == "device_offline", run
    assert "went offline" in run["error"]
    assert _get(live_server, "/api/projects").status_code == 200  # the server is still up
    unknown = _post(live_server, f"/api/projects/{project['id']}/pipelines/run",
                    {**body, "inputs": [f"photos/{COINS}"]}).json()
    assert _finished(live_server, unknown["id"])["error_code"] == "device_offline"


def test_a_pipeline_budget_on_a_device_is_run_by_its_agent(
    live_server: LiveServer, project: dict, device: tuple[str, AgentProcess]
) -> None:
    root = Path(project["path"])
    budget = '[[pipeline_budget]]\npipeline = "chain/pipeline.toml"\ninputs = ["photos"]\nloops = 2\n'
    (root / "mnnwb.toml").write_text(
        budget + 'device = "pixel"\nmax_latency_ms = 100000\nstages = { read = 0.0001 }\n'
        + budget + 'device = "nope"\nmax_latency_ms = 100000\n'
    )
    report = _post(live_server, f"/api/projects/{project['id']}/checks", {}).json()
    whole, read, unknown = report["results"]
    assert (whole["device"], whole["stage"], whole["passed"], whole["detail"]) == ("pixel", None, True, None)
    assert 0 < read["value"] < whole["value"] and read["passed"] is False and read["stage"] == "read"
    assert unknown["value"] is None and unknown["detail"] == "no paired device is named 'nope'"
    # The pipeline ran on the device: its folder and the input are in the session's folder there.
    [files] = list((device[1].home / "sessions").rglob("files"))
    assert (files / "chain" / "pipeline.toml").is_file() and (files / "photos" / COINS).is_file()


def test_a_cancel_stops_the_pipeline_on_the_device(
    live_server: LiveServer, project: dict, device: tuple[str, AgentProcess]
) -> None:
    device_id, agent = device
    root = Path(project["path"])
    (root / "many").mkdir()
    for index in range(MANY):
        shutil.copy(photo(COINS), root / "many" / f"{index:03}.png")
    body = {"pipeline": "chain/pipeline.toml", "inputs": ["many"], "device_id": device_id}
    started = _post(live_server, f"/api/projects/{project['id']}/pipelines/run", body).json()
    # The agent logs each input it starts: the second started, the first's result is in.
    wait_until(lambda: f"input 2 of {MANY}" in agent.log(), timeout=300, what="the first input to be done")
    cancelled = _post(live_server, f"/api/tool-runs/{started['id']}/cancel", {})
    assert cancelled.status_code == 200, cancelled.text
    run = _finished(live_server, started["id"])
    assert run["status"] == "cancelled", run
    stopped = run["result"]["stopped"]
    assert 1 <= stopped["done"] < stopped["given"] == MANY, stopped
    assert len(run["result"]["inputs"]) == stopped["done"]
    assert run["result"]["inputs"][0]["input"] == "many/000.png"
    assert run["result"]["device"]["id"] == device_id
    # The agent said so, and its pipeline process is gone: it did not go on with the rest.
    log = agent.log()
    assert f"stopped after {stopped['done']} of {MANY} inputs" in log
    assert f"input {MANY} of {MANY}" not in log
    wait_until(lambda: _pipeline_task(agent) is None, what="the device's pipeline process to end")
    # The device takes the next run at once.
    again = _post(live_server, f"/api/projects/{project['id']}/pipelines/run",
                  {**body, "inputs": [f"photos/{COINS}"]}).json()
    run = _finished(live_server, again["id"])
    assert run["status"] == "succeeded", run["error"]
    assert [e["input"] for e in run["result"]["inputs"]] == [f"photos/{COINS}"]
