"""Terminals are capped per user, across projects: a member at the cap is refused, another member
of the same project is not, and closing one makes room again."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from tests.server.team.conftest import Team, start_team, team_settings
from tests.waiting import wait_until

WS = "ws://127.0.0.1:8765"


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[Team]:
    yield from start_team(team_settings(tmp_path / "data", team_terminal=True, terminals_per_user=2))


def _refusal(team: Team, pid: str, who: str) -> tuple[int, str] | None:
    """``None`` when a terminal opens (it is closed again at once), else the close code and reason
    of the refused socket: accepted, then closed before anything is sent."""
    with team.client.websocket_connect(f"{WS}/api/projects/{pid}/terminal", headers=team.auth(who)) as ws:
        try:
            assert ws.receive_json()["type"] == "hello"
        except WebSocketDisconnect as closed:
            return closed.code, closed.reason
        ws.send_json({"type": "close"})
        return None


def test_a_member_at_the_terminal_cap_does_not_block_another(capped: Team):
    pid, other = capped.new_project(), capped.new_project("other")
    url = f"{WS}/api/projects/{pid}/terminal"
    with capped.client.websocket_connect(url, headers=capped.auth("editor")) as first:
        assert first.receive_json()["type"] == "hello"
        with capped.client.websocket_connect(url, headers=capped.auth("editor")) as second:
            assert second.receive_json()["type"] == "hello"
            full = (1008, "at most 2 terminals per user; close one first")
            assert _refusal(capped, pid, "editor") == full
            assert _refusal(capped, other, "editor") == full  # per user, whatever the project
            assert _refusal(capped, pid, "owner") is None  # the same project, another member
            second.send_json({"type": "close"})
        wait_until(lambda: _refusal(capped, pid, "editor") is None, what="room for another terminal")
        first.send_json({"type": "close"})
