"""Bad device connections are closed with the right code, and nothing else is affected; an
agent killed mid-run leaves its session lost until it reconnects."""

import asyncio
import json
import os
import signal
from collections.abc import Sequence
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from device_bridge import protocol as p
from device_bridge.deploy import deploy
from device_bridge.links import Identity, Limits
from tests.device_bridge.harness import AgentProcess, HubServer
from tests.waiting import process_running, wait_until

INFO = {"id": "raw", "name": "raw", "os": "test", "arch": "x", "python": "3", "cpus": 1, "mem": 1}


RAW_TOKEN = "raw-token"


def hello(token: str | None = None, protocol: int = 1) -> str:
    return json.dumps({"type": "hello", "protocol": protocol, "token": token or RAW_TOKEN, "device": INFO})


async def close_code(url: str, frames: Sequence[str | bytes], welcome: bool = True) -> int | None:
    async with connect(url.replace("http", "ws") + p.WS_PATH, max_size=None) as ws:
        if welcome:
            await ws.send(hello())
            assert json.loads(await ws.recv())["type"] == "welcome"
        for frame in frames:
            await ws.send(frame)
        try:
            while True:
                await asyncio.wait_for(ws.recv(), 10)
        except ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd else None


def still_serves(server: HubServer, project: str, tmp: Path) -> None:
    """The paired agent keeps working: deploy and run a script in a fresh session."""
    tmp.mkdir()
    (tmp / "ok.py").write_text("print('still fine')\n")
    sid = server.call(server.hub.open_session(project, "dev-a")).sid
    server.call(deploy(server.hub, project, sid, tmp))
    server.call(server.hub.send(project, p.RunStart(sid=sid, argv=["ok.py"])))
    server.recorder.wait(lambda e: e.type == "run.exit" and e.data["sid"] == sid)
    assert "still fine" in server.recorder.output(sid)


BAD_CONNECTIONS: dict[str, tuple[list[str | bytes], bool, int]] = {
    "not json": (["not json"], True, 1003),
    "unknown type": ([json.dumps({"type": "launch.missiles"})], True, 1003),
    "bad field": (
        [json.dumps({"type": "perf", "sid": "x", "t": 1, "cpu": -1, "rss": 0, "threads": 0})],
        True,
        1003,
    ),
    "binary frame": ([b"\x00\x00\x00\x02{}"], True, 1003),
    "second hello": ([hello()], True, 1003),
    "oversized": (["x" * (p.MAX_MESSAGE_BYTES + 1)], True, 1009),
    "first is not hello": ([json.dumps({"type": "pong", "t": 1})], False, 1003),
    "bad token": ([hello("nope")], False, 1008),
    "protocol mismatch": ([hello(protocol=2)], False, 1002),
}


@pytest.mark.parametrize("case", list(BAD_CONNECTIONS))
def test_bad_connection_is_closed_and_others_unaffected(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path, case: str
) -> None:
    hub_server.book.tokens["raw-token"] = Identity("dev-raw", "raw")
    frames, welcome, expected = BAD_CONNECTIONS[case]
    assert hub_server.call(close_code(hub_server.url, frames, welcome)) == expected
    assert not hub_server.hub.is_online("dev-raw")
    assert hub_server.hub.is_online("dev-a")
    still_serves(hub_server, f"p-{case.replace(' ', '-')}", tmp_path / "proj")


def test_a_device_cannot_speak_for_another_devices_session(
    hub_server: HubServer, agent: AgentProcess
) -> None:
    hub_server.book.tokens["raw-token"] = Identity("dev-raw", "raw")
    sid = hub_server.call(hub_server.hub.open_session("p-victim", "dev-a")).sid
    forged = json.dumps({"type": "log", "sid": sid, "stream": "stdout", "text": "forged"})
    canary = json.dumps({"type": "hello"})
    assert hub_server.call(close_code(hub_server.url, [forged, canary])) == 1003
    assert "forged" not in hub_server.recorder.output(sid)


def test_ping_timeout_and_rate_limit_close_the_connection() -> None:
    server = HubServer(Limits(ping_interval=0.2, ping_timeout=1.0, rate=20, burst=20))
    server.book.tokens["raw-token"] = Identity("dev-raw", "raw")
    try:
        assert server.call(close_code(server.url, [])) == p.Close.PING_TIMEOUT
        pongs = [json.dumps({"type": "pong", "t": 0})] * 100
        assert server.call(close_code(server.url, pongs)) == p.Close.RATE_LIMITED
    finally:
        server.close()


def test_killed_agent_marks_session_lost_and_reconnect_restores_it(
    hub_server: HubServer, tmp_path: Path
) -> None:
    hub_server.book.codes["code-k"] = Identity("dev-k", "killable")
    home = tmp_path / "home"
    first = AgentProcess(hub_server.url, home, "code-k", "killable")
    second = None
    try:
        wait_until(lambda: "connected to" in first.log(), what="the agent to connect")
        project = tmp_path / "proj"
        project.mkdir()
        (project / "loop.py").write_text("import time\nprint('up', flush=True)\ntime.sleep(60)\n")
        sid = hub_server.call(hub_server.hub.open_session("p-kill", "dev-k")).sid
        hub_server.call(deploy(hub_server.hub, "p-kill", sid, project))
        hub_server.call(hub_server.hub.send("p-kill", p.RunStart(sid=sid, argv=["loop.py"])))
        started = hub_server.recorder.wait(lambda e: e.type == "run.started" and e.data["sid"] == sid)
        wait_until(lambda: "up" in hub_server.recorder.output(sid))
        first.kill()
        lost = hub_server.recorder.wait(
            lambda e: e.type == "session.state" and e.data["sid"] == sid and e.data["state"] == "lost", 10
        )
        assert lost.project == "p-kill"
        assert hub_server.recorder.wait(
            lambda e: e.type == "device.status" and e.data == {"device_id": "dev-k", "online": False}
        )
        _kill_orphan(started.data["pid"])

        second = AgentProcess(hub_server.url, home, "code-k", "killable")
        hub_server.recorder.wait(
            lambda e: e.type == "session.state" and e.data["sid"] == sid and e.data["reason"] == "reconnected"
        )
        report = hub_server.call(deploy(hub_server.hub, "p-kill", sid, project))
        assert report.sent == []
    finally:
        first.kill()
        if second is not None:
            second.kill()


def _kill_orphan(pid: int) -> None:
    """The killed agent could not stop its program's process group; the test does."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        return


def start_loop(server: HubServer, project: str, root: Path) -> tuple[str, int]:
    """Open a session, deploy ``root`` and start ``loop.py``: (sid, pid)."""
    sid = server.call(server.hub.open_session(project, "dev-a")).sid
    server.call(deploy(server.hub, project, sid, root))
    server.call(server.hub.send(project, p.RunStart(sid=sid, argv=["loop.py"])))
    started = server.recorder.wait(lambda e: e.type == "run.started" and e.data["sid"] == sid)
    return sid, started.data["pid"]


def test_reconnect_closes_sessions_the_hub_forgot_and_keeps_the_others(
    hub_server: HubServer, agent: AgentProcess, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "loop.py").write_text("import time\nprint('up', flush=True)\ntime.sleep(60)\n")
    hub = hub_server.hub
    pids = {name: start_loop(hub_server, name, project) for name in ("p-forgotten", "p-kept")}
    hub_server.call(hub.disconnect("dev-a", p.Close.GOING_AWAY, "network drop"))
    wait_until(lambda: not hub.is_online("dev-a"), what="the device to drop")
    hub_server.call(hub.close_session("p-forgotten", pids["p-forgotten"][0]))

    kept = pids["p-kept"][0]
    hub_server.recorder.wait(
        lambda e: e.type == "session.state" and e.data["sid"] == kept and e.data["reason"] == "reconnected"
    )
    wait_until(
        lambda: not process_running(pids["p-forgotten"][1]), what="the forgotten session's program to stop"
    )
    assert process_running(pids["p-kept"][1])
    hub_server.call(hub.send("p-kept", p.RunStop(sid=kept)))
    hub_server.recorder.wait(lambda e: e.type == "run.exit" and e.data["sid"] == kept)
