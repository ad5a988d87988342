"""Reading the team server's websockets in tests: greetings, events, shells, and their closes."""

import json
import re
import time

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection

from tests.sandboxed import PID_ECHO, PID_PATTERN, host_pid
from tests.server.team.conftest import LiveTeam
from tests.waiting import wait_until

# What the server promises, and the slack a loaded 2-core CI runner needs on top of it.
CLOSE_DEADLINE = 1.0
MARGIN = 9.0


def close_of(ws: ClientConnection) -> tuple[int, str] | None:
    """The socket's close code and reason once the server has closed it; what came before is
    read and dropped."""
    try:
        while True:
            ws.recv(timeout=0)
    except TimeoutError:
        return None
    except ConnectionClosed as closed:
        return (closed.rcvd.code, closed.rcvd.reason) if closed.rcvd else (1006, "")


def expect_closed(ws: ClientConnection, since: float, record, name: str) -> tuple[int, str]:
    """Wait for the close; record how long after ``since`` it was seen."""
    found = wait_until(lambda: close_of(ws), CLOSE_DEADLINE + MARGIN, f"the {name} socket to close")
    record(f"{name}_closed_after_s", round(time.monotonic() - since, 3))
    return found


def greeted(ws: ClientConnection) -> dict:
    return dict(json.loads(ws.recv(timeout=30)))


def shell_pid(ws: ClientConnection) -> int:
    """The pid, seen from here, of the shell behind a terminal socket (it prints its pid in
    its sandbox)."""
    assert greeted(ws)["type"] == "hello"
    ws.send(json.dumps({"type": "input", "data": PID_ECHO + "\n"}))
    text = ""
    while not (found := re.search(PID_PATTERN, text)):
        message = json.loads(ws.recv(timeout=30))
        text += message.get("data", "") if message["type"] == "output" else ""
    return host_pid(int(found.group(1)), found.group(2))


def still_served(team: LiveTeam, pid: str, ws: ClientConnection, name: str) -> None:
    """``ws`` (a project socket) still gets the project's events."""
    made = httpx.post(f"{team.url}/api/projects/{pid}/files/ops", json={"op": "create", "path": name},
                      headers=team.auth("owner"))
    assert made.status_code == 200, made.text
    while True:
        event = json.loads(ws.recv(timeout=30))
        if event["channel"] == "files" and event["data"]["changes"][0]["path"] == name:
            return


def refused(team: LiveTeam, path: str, who: str | None = None, cookie: str | None = None) -> int:
    """The HTTP status a handshake is refused with: without credentials the security middleware
    closes before accept, which uvicorn answers with 403 (no close code reaches the client)."""
    with pytest.raises(InvalidStatus) as caught:
        team.socket(path, who, cookie)
    return caught.value.response.status_code


def refused_after_accept(team: LiveTeam, path: str, who: str) -> tuple[int, str]:
    """The close code and reason of a socket a signed-in ``who`` may not have: the handshake
    succeeds, then the server closes at once, before sending anything."""
    ws = team.socket(path, who)
    with pytest.raises(ConnectionClosed) as caught:
        ws.recv(timeout=30)
    rcvd = caught.value.rcvd
    assert rcvd is not None, "closed without a close frame"
    return rcvd.code, rcvd.reason
