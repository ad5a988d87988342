"""The tab socket's protocol over a real connection: resync after an old ``since=``, the 1013
close of a tab that fell behind, the echo of a save, and envelopes of another version."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets.sync.client as ws_client
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from server.api.services import services_of
from server.core.config import Settings
from tests.conftest import make_client
from tests.waiting import wait_until

QUEUE = 10
REPLAY = 5


@pytest.fixture
def small(settings: Settings) -> Iterator[TestClient]:
    """A server whose tab queues and replay buffer are small enough to outrun."""
    settings.ws_queue_size, settings.replay_size = QUEUE, REPLAY
    with make_client(settings) as client:
        yield client


def _project(client: TestClient) -> str:
    made = client.post("/api/projects", json={"name": "socket"})
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


def _path(pid: str, since: int | None = None) -> str:
    return f"ws://127.0.0.1:8765/api/projects/{pid}/ws" + (f"?since={since}" if since is not None else "")


def _publish(client: TestClient, pid: str, count: int) -> None:
    """Publish ``count`` file events in one go on the server's loop, as a burst of changes would."""
    hub = services_of(client.app).hub

    def burst() -> None:
        for i in range(count):
            hub.publish(pid, "files", "changed", {"changes": [{"kind": "added", "path": f"f{i}.py"}]})

    assert client.portal is not None
    client.portal.call(burst)


def test_an_old_since_gets_a_resync_and_a_recent_one_a_replay(small: TestClient):
    pid = _project(small)
    with small.websocket_connect(_path(pid)) as ws:
        seen = ws.receive_json()["data"]["seq"]
    _publish(small, pid, REPLAY * 3)
    with small.websocket_connect(_path(pid, since=seen)) as ws:
        hello, second = ws.receive_json(), ws.receive_json()
        assert hello["data"]["seq"] == seen + REPLAY * 3
        assert (second["channel"], second["type"]) == ("sys", "resync")
    recent = seen + REPLAY * 3 - 2
    with small.websocket_connect(_path(pid, since=recent)) as ws:
        ws.receive_json()
        replayed = [ws.receive_json() for _ in range(2)]
    assert [e["seq"] for e in replayed] == [recent + 1, recent + 2]
    assert all(e["channel"] == "files" for e in replayed)


def test_a_tab_that_falls_behind_is_closed_with_1013_and_resumes_with_since(small: TestClient):
    pid = _project(small)
    received: list[dict[str, Any]] = []
    with small.websocket_connect(_path(pid)) as ws:
        ws.receive_json()
        _publish(small, pid, QUEUE * 3)
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                received.append(ws.receive_json())
    assert closed.value.code == 1013 and "since=" in closed.value.reason
    assert len(received) < QUEUE * 3
    assert small.get("/api/health").status_code == 200
    last = received[-1]["seq"] if received else 0
    with small.websocket_connect(_path(pid, since=last)) as ws:
        assert ws.receive_json()["type"] == "hello"
        assert ws.receive_json()["type"] == "resync"


def test_an_envelope_of_another_version_is_refused_with_1002(client: TestClient, project: dict[str, Any]):
    with client.websocket_connect(_path(project["id"])) as ws:
        ws.receive_json()
        ws.send_json({"v": 1, "seq": 0, "channel": "files", "type": "x", "data": {}})
        assert ws.receive_json()["type"] == "error"  # version 1 is served
        ws.send_json({"v": 2, "seq": 0, "channel": "files", "type": "x", "data": {}})
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 1002
    assert "v1" in closed.value.reason


def _events(tab: Any, until: str) -> list[dict[str, Any]]:
    """File events up to and including the one that names ``until``."""
    found: list[dict[str, Any]] = []
    while not found or until not in [c["path"] for c in found[-1]["data"]["changes"]]:
        event = json.loads(tab.recv(timeout=20))
        if event["channel"] == "files":
            found.append(event)
    return found


def _armed(tab: Any, root: Path) -> bool:
    """Write a probe file; true once the project's watcher reports it."""
    probe = root / "probe.txt"
    probe.write_text(str(probe.stat().st_mtime_ns + 1 if probe.exists() else 0))
    try:
        return json.loads(tab.recv(timeout=0.5))["channel"] == "files"
    except TimeoutError:
        return False


def test_a_save_comes_back_once_marked_with_the_saving_tab(live_server):
    api = httpx.Client(base_url=live_server.url, headers=live_server.auth)
    project = api.post("/api/projects", json={"name": "echo"}).json()
    root = Path(project["path"])
    url = live_server.url.replace("http", "ws") + f"/api/projects/{project['id']}/ws"
    with ws_client.connect(url, additional_headers={"Authorization": f"Bearer {live_server.token}"}) as tab:
        assert json.loads(tab.recv(timeout=20))["type"] == "hello"
        wait_until(lambda: _armed(tab, root), what="the project's file watcher")
        saved = api.put(f"/api/projects/{project['id']}/files/content", params={"path": "model.py"},
                        json={"content": "x = 1\n"}, headers={"X-MNNWB-Client": "tab-a"})
        assert saved.status_code == 200, saved.text
        (root / "outside.py").write_text("y = 2\n")
        events = _events(tab, until="outside.py")
    api.close()
    mentions = [e for e in events for c in e["data"]["changes"] if c["path"] == "model.py"]
    assert len(mentions) == 1, events
    assert mentions[0]["data"]["client"] == "tab-a"
    assert mentions[0]["data"]["changes"] == [{"kind": "modified", "path": "model.py",
                                               "etag": saved.json()["etag"]}]

