from collections.abc import Iterator
from pathlib import Path

import pytest

from device_bridge.links import Identity
from tests.device_bridge.harness import AgentProcess, HubServer
from tests.waiting import wait_until


@pytest.fixture(scope="module")
def hub_server() -> Iterator[HubServer]:
    server = HubServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def agent(hub_server: HubServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AgentProcess]:
    """One paired agent process, online as device ``dev-a``."""
    hub_server.book.codes["code-a"] = Identity("dev-a", "bench-board")
    home: Path = tmp_path_factory.mktemp("agent-a")
    process = AgentProcess(hub_server.url, home, "code-a", "bench-board")
    try:
        wait_until(lambda: "connected to" in process.log(), what="the agent to connect")
        yield process
    finally:
        process.kill()
