"""Who gets a terminal in team mode: admins; owners and editors only with MNNWB_TEAM_TERMINAL;
viewers never."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from tests.server.team.conftest import Team, start_team, team_settings

WS = "ws://127.0.0.1:8765"


def _opens(team: Team, who: str, pid: str) -> bool:
    """Whether a terminal opens; a refusal is accepted first, then closed with 1008 and a reason."""
    with team.client.websocket_connect(f"{WS}/api/projects/{pid}/terminal", headers=team.auth(who)) as ws:
        try:
            hello = ws.receive_json()
        except WebSocketDisconnect as closed:
            assert (closed.code, bool(closed.reason)) == (1008, True), (who, closed.reason)
            return False
        ws.send_json({"type": "close"})
        return bool(hello["type"] == "hello")


@pytest.fixture(params=[False, True], ids=["default", "team_terminal"])
def team_with(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Team, bool]]:
    for team in start_team(team_settings(tmp_path / "data", team_terminal=request.param)):
        yield team, request.param


def test_terminal_access_by_role(team_with: tuple[Team, bool]):
    team, members_allowed = team_with
    pid = team.new_project()
    opened = {who: _opens(team, who, pid) for who in ("outsider", "viewer", "editor", "owner", "admin")}
    assert opened == {
        "outsider": False, "viewer": False,
        "editor": members_allowed, "owner": members_allowed, "admin": True,
    }
