"""A real device agent process paired with a browser test's server, for the tests that drive a
device from the page."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.conftest import LiveServer
from tests.device_bridge.harness import AgentProcess
from tests.waiting import wait_until


def online_devices(live_server: LiveServer) -> list[dict]:
    devices = httpx.get(f"{live_server.url}/api/devices", headers=live_server.auth).json()
    return [d for d in devices if d["online"]]


@contextmanager
def paired_agent(live_server: LiveServer, folder: Path,
                 name: str = "board") -> Iterator[tuple[dict, AgentProcess]]:
    """An agent process paired with ``live_server`` under ``name``, running in ``folder``: the
    device as the server lists it once it is online, and the process, killed on the way out."""
    response = httpx.post(f"{live_server.url}/api/devices/pairings", json={"name": name},
                          headers=live_server.auth)
    assert response.status_code == 201, response.text
    agent = AgentProcess(live_server.url, folder, response.json()["token"], name)
    try:
        found = wait_until(lambda: online_devices(live_server), what="the device to come online")
        yield found[0], agent
    except BaseException:
        print(f"--- the agent's log ---\n{agent.log()}")  # shown with the failure
        raise
    finally:
        agent.kill()
