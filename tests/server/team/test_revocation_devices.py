"""Un-sharing a device ends the device sessions that only the share allowed, at once, and closes
that person's sockets in those projects; sessions another person's right keeps stay. A real
agent on a team-mode server on a real port."""

import time
from pathlib import Path

import httpx

from tests.device_bridge.harness import AgentProcess
from tests.server.team.conftest import LiveTeam
from tests.server.team.sockets import expect_closed, greeted, still_served
from tests.waiting import wait_until


def _sessions(team: LiveTeam, pid: str, who: str) -> list[dict]:
    listed = httpx.get(f"{team.url}/api/projects/{pid}/devices/sessions", headers=team.auth(who))
    assert listed.status_code == 200, listed.text
    return list(listed.json())


def _open_session(team: LiveTeam, pid: str, did: str, who: str) -> int:
    return httpx.post(f"{team.url}/api/projects/{pid}/devices/{did}/sessions",
                      headers=team.auth(who)).status_code


def test_unsharing_a_device_ends_the_sessions_the_share_allowed(live_team: LiveTeam, tmp_path: Path,
                                                                 record_property):
    url, owner = live_team.url, live_team.auth("owner")
    pairing = httpx.post(f"{url}/api/devices/pairings", json={"name": "pi"}, headers=owner).json()
    agent = AgentProcess(url, tmp_path / "agent", pairing["token"], "pi")
    try:
        wait_until(lambda: "connected to" in agent.log(), what=f"the agent to connect: {agent.log()}")
        [device] = httpx.get(f"{url}/api/devices", headers=owner).json()
        did = device["id"]
        assert httpx.put(f"{url}/api/devices/{did}/shares/editor", headers=owner).status_code == 204
        made = httpx.post(f"{url}/api/projects", json={"name": "mine"}, headers=live_team.auth("editor"))
        mine, shared = made.json()["id"], live_team.new_project()
        assert _open_session(live_team, mine, did, "editor") == 201
        assert _open_session(live_team, shared, did, "owner") == 201
        tab_mine = live_team.socket(f"/api/projects/{mine}/ws", "editor")
        tab_shared = live_team.socket(f"/api/projects/{shared}/ws", "editor")
        for ws in (tab_mine, tab_shared):
            greeted(ws)
        since = time.monotonic()
        unshared = httpx.delete(f"{url}/api/devices/{did}/shares/editor", headers=owner)
        assert unshared.status_code == 204
        assert expect_closed(tab_mine, since, record_property, "tab") == (
            1008, "a device is no longer shared with you")
        assert _sessions(live_team, mine, "editor") == []
        assert _open_session(live_team, mine, did, "editor") == 404
        # The owner's project uses the owner's device: its session and the editor's socket stay.
        assert [s["device_id"] for s in _sessions(live_team, shared, "editor")] == [did]
        still_served(live_team, shared, tab_shared, "still.txt")
    finally:
        agent.kill()
