"""Chat and benchmark on a paired device: a live server and real agent processes."""

import json
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import ClientConnection

from device_bridge.llm.runtime import LoadedModel, Sampler
from tests.conftest import LiveServer
from tests.device_bridge.harness import REPO, AgentProcess
from tests.fakes.llm import Llms
from tests.server.devices.test_devices_api import tab_socket
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(600)
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello?"}]


@pytest.fixture
def project(live_server: LiveServer, llms: Llms) -> dict:
    created = httpx.post(f"{live_server.url}/api/projects", json={"name": "on-device"},
                         headers=live_server.auth, timeout=60).json()
    shutil.copytree(llms.q4, Path(created["path"]) / "models" / "tiny")
    Path(created["path"], "data").mkdir()
    Path(created["path"], "data", "not-for-the-device.bin").write_bytes(b"x" * 4096)
    return created


def _pairing_code(live: LiveServer, name: str) -> str:
    response = httpx.post(f"{live.url}/api/devices/pairings", json={"name": name},
                          headers=live.auth, timeout=60)
    assert response.status_code == 201, response.text
    return str(response.json()["token"])


def _online(live: LiveServer) -> list[dict]:
    listed = httpx.get(f"{live.url}/api/devices", headers=live.auth, timeout=60).json()
    return [d for d in listed if d["online"]]


@pytest.fixture
def device(live_server: LiveServer, tmp_path: Path) -> Iterator[tuple[str, AgentProcess]]:
    agent = AgentProcess(live_server.url, tmp_path / "agent", _pairing_code(live_server, "pi"), "pi")
    try:
        yield wait_until(lambda: _online(live_server), what="the device to come online")[0]["id"], agent
    finally:
        agent.kill()


def _chat(live: LiveServer, project: dict, **body) -> httpx.Response:
    return httpx.post(f"{live.url}/api/projects/{project['id']}/llm/chat", headers=live.auth,
                      json={"model": "models/tiny", "messages": MESSAGES, "threads": 1, **body},
                      timeout=300)


def _events(ws: ClientConnection, until: str, chat_id: str) -> list[dict]:
    """The tab socket's events up to the ``llm``/``until`` event of ``chat_id``."""
    seen = []
    while True:
        event = json.loads(ws.recv(timeout=120))
        seen.append(event)
        if event["channel"] == "llm" and event["type"] == until and event["data"]["chat_id"] == chat_id:
            return seen


def _pushed(events: list[dict]) -> list[str]:
    return [path for e in events if e["type"] == "sync.done" for path in e["data"]["sent"]]


def test_chat_on_the_device_streams_the_greedy_answer_and_pushes_the_model_once(
    live_server: LiveServer, project: dict, device: tuple[str, AgentProcess], llms: Llms
) -> None:
    device_id, agent = device
    with tab_socket(live_server, project["id"]) as ws:
        response = _chat(live_server, project, max_new_tokens=12, stream=True, chat_id="d1",
                         device_id=device_id)
        assert response.status_code == 200, response.text
        events = _events(ws, "done", "d1")
        answer = response.json()
        again = _chat(live_server, project, max_new_tokens=12, stream=True, chat_id="d2",
                      device_id=device_id)
        second = _events(ws, "done", "d2")

    model = LoadedModel(llms.q4, threads=1)
    expected = model.generate(model.prompt_ids(MESSAGES), 12, Sampler())
    assert answer["text"] == expected.text and answer["generated_tokens"] == len(expected.tokens)
    assert answer["prefill_tps"] > 0 and answer["decode_tps"] > 0 and answer["ttft_ms"] > 0
    tokens = [e["data"]["text"] for e in events if e["channel"] == "llm" and e["type"] == "token"]
    assert "".join(tokens) == answer["text"]
    assert [e["data"] for e in events if e["type"] == "done"] == [{"chat_id": "d1", **answer}]

    assert sorted(_pushed(events)) == sorted(f"models/tiny/{p.name}" for p in llms.q4.iterdir())
    assert again.json()["text"] == answer["text"] and _pushed(second) == []
    on_device = list((agent.home / "sessions").rglob("files"))
    assert len(on_device) == 1 and (on_device[0] / "models" / "tiny" / "llm.mnn").is_file()
    assert not (on_device[0] / "data").exists()


def _chat_and_stop(live_server: LiveServer, project: dict, device_id: str, seed: int
                   ) -> tuple[httpx.Response, httpx.Response]:
    """A long sampled answer (token by token: a greedy one is too quick), stopped once its
    first token is on the tab's socket; the stop's answer and the chat's."""
    reply: dict = {}
    with tab_socket(live_server, project["id"]) as ws:
        asking = threading.Thread(target=lambda: reply.update(answer=_chat(
            live_server, project, max_new_tokens=4000, stream=True, chat_id="long", device_id=device_id,
            sampler={"type": "temperature", "seed": seed})))
        asking.start()
        while not (json.loads(ws.recv(timeout=120))["type"] == "token"):
            continue
        stop = httpx.post(f"{live_server.url}/api/projects/{project['id']}/llm/chat/long/stop",
                          headers=live_server.auth, timeout=60)
        asking.join(120)
    return stop, reply["answer"]


def test_a_chat_on_the_device_stops_when_asked(
    live_server: LiveServer, project: dict, device: tuple[str, AgentProcess]
) -> None:
    device_id, _ = device
    for seed in range(3, 8):
        stop, reply = _chat_and_stop(live_server, project, device_id, seed)
        if reply.json()["finish_reason"] == "stopped":
            break
        # The answer ended (an end token drawn, or all its tokens made) before the stop reached
        # the device, as a busy machine can make happen — before the server saw the stop
        # (``stopped: False``) or after it had passed it on: another answer, with another seed.
        assert reply.json()["finish_reason"] in ("stop", "length")
    assert stop.json() == {"stopped": True}
    answer = reply.json()
    assert answer["finish_reason"] == "stopped" and 0 < answer["generated_tokens"] < 4000
    idle = httpx.post(f"{live_server.url}/api/projects/{project['id']}/llm/chat/long/stop",
                      headers=live_server.auth, timeout=60)
    assert idle.json() == {"stopped": False}


def test_the_llm_benchmark_runs_on_the_device_as_a_tool_run(
    live_server: LiveServer, project: dict, device: tuple[str, AgentProcess]
) -> None:
    device_id, _ = device
    started = httpx.post(f"{live_server.url}/api/projects/{project['id']}/tools/llm-bench",
                         headers=live_server.auth,
                         json={"model": "models/tiny", "prompt_tokens": [8, 16], "gen_tokens": 8,
                               "repeats": 1, "threads": 1, "device_id": device_id}, timeout=60)
    assert started.status_code == 202, started.text

    def finished() -> dict | None:
        run = httpx.get(f"{live_server.url}/api/tool-runs/{started.json()['id']}",
                        headers=live_server.auth, timeout=60).json()
        return run if run["status"] not in ("queued", "running") else None

    run = wait_until(finished, timeout=300, what="the device benchmark")
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert result["device"] == {"id": device_id, "name": "pi"}
    assert [case["prompt_tokens"] for case in result["cases"]] == [8, 16]
    assert all(case["decode_tps"]["median"] > 0 for case in result["cases"])


def test_a_device_without_mnn_llm_says_so(
    live_server: LiveServer, project: dict, tmp_path: Path
) -> None:
    fake = tmp_path / "no-llm"
    (fake / "MNN").mkdir(parents=True)
    (fake / "MNN" / "__init__.py").write_text("version = '0.0-no-llm'\n")
    home = tmp_path / "old-agent"
    home.mkdir()
    (home / "pairing-code").write_text(_pairing_code(live_server, "old") + "\n")
    agent = AgentProcess.__new__(AgentProcess)
    agent._start([sys.executable, "-m", "device_bridge.agent", "--server", live_server.url, "--home",
                  str(home), "--name", "old", "--token-file", str(home / "pairing-code")],
                 home, REPO, {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{fake}"})
    try:
        device_id = wait_until(lambda: _online(live_server), what="the device to come online")[0]["id"]
        response = _chat(live_server, project, max_new_tokens=4, device_id=device_id)
    finally:
        agent.kill()
    assert response.status_code == 503, response.text
    assert response.json()["code"] == "no_mnn_llm"
    assert "has no MNN.llm" in response.json()["detail"]
