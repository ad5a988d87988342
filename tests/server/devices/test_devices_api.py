"""Pairing, the registry, sessions and tab commands, against a live server and a real agent."""

import json
import shlex
import time
from pathlib import Path

import httpx
from websockets.sync.client import ClientConnection, connect

from tests.conftest import LiveServer
from tests.device_bridge.harness import AgentProcess
from tests.waiting import wait_until


def pair(live: LiveServer, home: Path, name: str = "pi", exact: bool = False) -> tuple[dict, AgentProcess]:
    """Pair an agent; with ``exact`` it runs the very command line the workbench shows."""
    response = httpx.post(f"{live.url}/api/devices/pairings", json={"name": name}, headers=live.auth)
    assert response.status_code == 201, response.text
    pairing = response.json()
    words = shlex.split(pairing["command"])
    assert words[:2] == ["python3", "-c"] and f"s='{live.url}'" in words[2]
    assert f"c='{pairing['token']}'" in words[2] and pairing["agent_sha256"] in words[2]
    if exact:
        agent = AgentProcess.from_shell(pairing["command"], home)
    else:
        agent = AgentProcess(live.url, home, pairing["token"], name)
    wait_until(lambda: "connected to" in agent.log(), what=f"the agent to connect: {agent.log()}")
    return pairing, agent


def devices(live: LiveServer) -> list[dict]:
    return httpx.get(f"{live.url}/api/devices", headers=live.auth).json()


def tab_socket(live: LiveServer, pid: str) -> ClientConnection:
    url = live.url.replace("http", "ws") + f"/api/projects/{pid}/ws"
    return connect(url, additional_headers={"Authorization": f"Bearer {live.token}"})


def command(ws: ClientConnection, channel: str, type_: str, **data) -> None:
    ws.send(json.dumps({"v": 1, "channel": channel, "type": type_, "data": data}))


def next_event(ws: ClientConnection, type_: str, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        event = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if event["type"] == type_:
            return event["data"]


def read_run(ws: ClientConnection) -> tuple[str, int]:
    """Output up to the run's exit, and its exit code."""
    text = ""
    while True:
        event = json.loads(ws.recv(timeout=20))
        if event["type"] == "log":
            text += event["data"]["text"]
        elif event["type"] == "run.exit":
            return text, event["data"]["code"]


def test_pair_list_rename_and_device_token_is_no_api_token(live_server: LiveServer, tmp_path: Path) -> None:
    _, agent = pair(live_server, tmp_path / "agent", exact=True)
    try:
        [device] = devices(live_server)
        assert device["online"] and device["name"] == "pi"
        assert device["info"]["python"] and device["info"]["cpus"] >= 1
        renamed = httpx.patch(
            f"{live_server.url}/api/devices/{device['id']}",
            json={"name": "board"},
            headers=live_server.auth,
        )
        assert renamed.json()["name"] == "board"

        device_token = json.loads((tmp_path / "agent" / "device.json").read_text())["token"]
        for path in ("/api/devices", "/api/projects"):
            refused = httpx.get(
                f"{live_server.url}{path}", headers={"Authorization": f"Bearer {device_token}"}
            )
            assert refused.status_code == 401
    finally:
        agent.kill()
    wait_until(lambda: not devices(live_server)[0]["online"], what="the device to go offline")
    assert devices(live_server)[0]["last_seen"] is not None


def test_tab_deploys_and_runs_on_the_device(live_server: LiveServer, tmp_path: Path) -> None:
    created = httpx.post(
        f"{live_server.url}/api/projects", json={"name": "demo"}, headers=live_server.auth
    ).json()
    Path(created["path"], "main.py").write_text("import sys\nprint('on device', input())\n")
    _, agent = pair(live_server, tmp_path / "agent")
    try:
        did = devices(live_server)[0]["id"]
        opened = httpx.post(
            f"{live_server.url}/api/projects/{created['id']}/devices/{did}/sessions",
            headers=live_server.auth,
        )
        assert opened.status_code == 201, opened.text
        sid = opened.json()["sid"]
        with tab_socket(live_server, created["id"]) as ws:
            command(ws, "devices", "sync.start", sid=sid)
            assert "main.py" in next_event(ws, "sync.done")["sent"]
            command(ws, "log", "run.start", sid=sid, argv=["main.py"])
            next_event(ws, "run.started")
            command(ws, "log", "log.stdin", sid=sid, text="hello\n")
            output, exit_code = read_run(ws)
            assert (output, exit_code) == ("on device hello\n", 0)
            command(ws, "log", "run.start", sid="nope", argv=["main.py"])
            assert next_event(ws, "error")["code"] == "unknown_session"
            command(ws, "devices", "device.attach", device_id="not-paired")
            assert next_event(ws, "error")["message"] == "no such device"
            command(ws, "devices", "device.attach", device_id=did)
            assert next_event(ws, "session.state")["sid"] == sid
        listed = httpx.get(
            f"{live_server.url}/api/projects/{created['id']}/devices/sessions", headers=live_server.auth
        ).json()
        assert [s["sid"] for s in listed] == [sid]
        closed = httpx.delete(
            f"{live_server.url}/api/projects/{created['id']}/devices/{did}/sessions/{sid}",
            headers=live_server.auth,
        )
        assert closed.status_code == 204
    finally:
        agent.kill()


def test_revoking_a_device_disconnects_it_for_good(live_server: LiveServer, tmp_path: Path) -> None:
    _, agent = pair(live_server, tmp_path / "agent")
    try:
        did = devices(live_server)[0]["id"]
        gone = httpx.delete(f"{live_server.url}/api/devices/{did}", headers=live_server.auth)
        assert gone.status_code == 204
        assert agent.proc.wait(20) == 2
        assert "removed in the workbench" in agent.log()
        assert devices(live_server) == []
        again = AgentProcess(live_server.url, tmp_path / "agent", None, "pi")
        try:
            assert again.proc.wait(20) == 2
            assert "refused this device's token" in again.log()
        finally:
            again.kill()
    finally:
        agent.kill()
