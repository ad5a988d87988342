"""The per-tab websocket: envelopes, seq numbers, replay with since=, pings, bad input."""

import asyncio
import json
import time
from pathlib import Path

import httpx
import pytest
import websockets.sync.client as ws_client
from starlette.websockets import WebSocketDisconnect

from server.api.services import services_of
from server.api.ws import TabConnection
from server.core.events import EventHub
from tests.waiting import run_async, wait_until


def _ws(client, project, since=None):
    query = f"?since={since}" if since is not None else ""
    path = f"ws://127.0.0.1:8765/api/projects/{project['id']}/ws{query}"
    return client.websocket_connect(path)


def test_hello_then_events_in_seq_order(client, project):
    with _ws(client, project) as ws:
        hello = ws.receive_json()
        assert (hello["v"], hello["channel"], hello["type"]) == (1, "sys", "hello")
        client.post(f"/api/projects/{project['id']}/files/ops", json={"op": "create", "path": "a.py"})
        client.post(f"/api/projects/{project['id']}/files/ops", json={"op": "create", "path": "b.py"})
        first, second = ws.receive_json(), ws.receive_json()
    assert first["channel"] == "files" and first["data"]["changes"][0]["path"] == "a.py"
    assert second["seq"] == first["seq"] + 1


def test_reconnect_with_since_replays_what_was_missed(client, project):
    ops = f"/api/projects/{project['id']}/files/ops"
    with _ws(client, project) as ws:
        seq = ws.receive_json()["data"]["seq"]
    client.post(ops, json={"op": "create", "path": "missed.py"})
    with _ws(client, project, since=seq) as ws:
        assert ws.receive_json()["type"] == "hello"
        replayed = ws.receive_json()
    assert replayed["seq"] == seq + 1
    assert replayed["data"]["changes"][0]["path"] == "missed.py"


def test_malformed_message_closes_with_1003(client, project):
    with _ws(client, project) as ws:
        ws.receive_json()
        ws.send_text("{not json")
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
    assert info.value.code == 1003
    assert client.get("/api/health").status_code == 200


def test_oversized_message_closes_with_1009(client, project):
    with _ws(client, project) as ws:
        ws.receive_json()
        ws.send_text(json.dumps({"v": 1, "channel": "dap", "type": "x", "data": {"p": "x" * 1_100_000}}))
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
    assert info.value.code == 1009


def test_unanswered_pings_close_the_socket(client, project):
    services_of(client.app).settings.ws_ping_interval = 0.05
    with _ws(client, project) as ws:
        ws.receive_json()
        assert ws.receive_json()["type"] == "ping"
        assert ws.receive_json()["type"] == "ping"
        with pytest.raises(WebSocketDisconnect) as info:
            ws.receive_json()
    assert info.value.code == 4000


def test_answered_pings_keep_the_socket_open(client, project):
    services_of(client.app).settings.ws_ping_interval = 0.05
    with _ws(client, project) as ws:
        ws.receive_json()
        for _ in range(5):
            assert ws.receive_json()["type"] == "ping"
            ws.send_json({"v": 1, "channel": "sys", "type": "pong", "data": {}})


def test_slow_subscriber_gets_perf_dropped_but_overflows_on_files():
    hub = EventHub(queue_size=3, replay_size=100)
    sub, _ = hub.subscribe("p")
    for i in range(10):
        hub.publish("p", "perf", "sample", {"i": i})
    assert sub.queue.qsize() == 3 and sub.take_dropped() == 7 and not sub.overflowed.is_set()
    hub.publish("p", "files", "changed", {})
    assert sub.overflowed.is_set()


def test_a_tab_that_falls_behind_is_closed_to_resume_with_since():
    """The sender sees the overflow at its next event, once the send it was blocked in returns;
    nothing after the overflow is sent."""
    async def scenario() -> tuple[int, list[dict]]:
        hub = EventHub(queue_size=3, replay_size=100)
        sub, _ = hub.subscribe("p")
        sent: list[dict] = []
        released = asyncio.Event()

        class SlowSocket:  # a tab that does not read: the first send blocks until released
            async def send_text(self, text: str) -> None:
                await released.wait()
                sent.append(json.loads(text))

        tab = TabConnection(SlowSocket(), sub, hub, 60.0, {})  # type: ignore[arg-type]
        sender = asyncio.create_task(tab.sender())
        hub.publish("p", "files", "changed", {"i": 0})
        while sub.queue.qsize():  # the sender took it and is blocked sending it
            await asyncio.sleep(0)
        for i in range(1, 5):  # three fit in the queue, the fourth overflows it
            hub.publish("p", "files", "changed", {"i": i})
        assert sub.overflowed.is_set() and not sender.done()
        released.set()
        await asyncio.wait_for(sender, 30)
        return tab.close_code, sent

    code, sent = run_async(scenario())
    assert code == 1013
    assert [message["data"] for message in sent] == [{"i": 0}]


def test_replay_reports_incomplete_history():
    hub = EventHub(queue_size=100, replay_size=5)
    for i in range(20):
        hub.publish("p", "files", "changed", {"i": i})
    _, complete = hub.subscribe("p", since=2)
    assert complete is False
    sub, complete = hub.subscribe("p", since=17)
    assert complete is True and [sub.queue.get_nowait().seq for _ in range(3)] == [18, 19, 20]


def _wait_for(predicate, timeout=5.0):
    return wait_until(predicate, timeout, interval=0.02)


def test_outside_edits_reach_every_tab_within_a_second(live_server):
    api = httpx.Client(base_url=live_server.url, headers=live_server.auth)
    project = api.post("/api/projects", json={"name": "watched"}).json()
    url = live_server.url.replace("http", "ws") + f"/api/projects/{project['id']}/ws"
    headers = {"Authorization": f"Bearer {live_server.token}"}
    with ws_client.connect(url, additional_headers=headers) as tab_a, \
            ws_client.connect(url, additional_headers=headers) as tab_b:
        for tab in (tab_a, tab_b):
            assert json.loads(tab.recv(timeout=5))["type"] == "hello"
        # The watcher arms after the socket opens: wait until a probe file is reported.
        probe = Path(project["path"], "probe.txt")

        def armed() -> bool:
            probe.write_text(str(time.monotonic()))
            try:
                return "probe.txt" in tab_a.recv(timeout=0.2)
            except TimeoutError:
                return False

        wait_until(armed, what="the folder watcher to report a change")
        started = time.monotonic()
        Path(project["path"], "outside.py").write_text("x = 1\n")
        for tab in (tab_a, tab_b):
            added = {"kind": "added", "path": "outside.py"}
            while added not in json.loads(tab.recv(timeout=1.0))["data"].get("changes", []):
                pass  # the probe's own events may still be queued
        assert time.monotonic() - started < 1.0
    api.close()
