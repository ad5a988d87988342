"""Budgets on a paired device: latency and memory measured there by a real agent process,
through the checks API of a live server."""

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import LiveServer
from tests.device_bridge.harness import AgentProcess
from tests.server.checks.conftest import Variants
from tests.server.devices.test_devices_api import command, tab_socket
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(600)

ON_DEVICE = """
[[budget]]
model = "model.mnn"
device = "pixel"
max_latency_ms = 10000
max_memory_mb = 1000
max_size_mb = 1
loops = 5

[[budget]]
model = "slow.mnn"
device = "pixel"
max_latency_ms = 0.0001
loops = 3

[[budget]]
model = "model.mnn"
device = "nope"
max_latency_ms = 10000
"""


def _post(live: LiveServer, path: str, body: dict) -> httpx.Response:
    return httpx.post(f"{live.url}{path}", json=body, headers=live.auth, timeout=300)


@pytest.fixture
def project(live_server: LiveServer, variants: Variants) -> dict:
    created = _post(live_server, "/api/projects", {"name": "budgets-on-device", "template": "empty"}).json()
    root = Path(created["path"])
    variants.copy_to(root)
    (root / "mnnwb.toml").write_text(ON_DEVICE)
    return created


@pytest.fixture
def agent(live_server: LiveServer, tmp_path: Path) -> Iterator[AgentProcess]:
    code = _post(live_server, "/api/devices/pairings", {"name": "pixel"}).json()["token"]
    process = AgentProcess(live_server.url, tmp_path / "agent", code, "pixel")

    def online() -> bool:
        listed = httpx.get(f"{live_server.url}/api/devices", headers=live_server.auth, timeout=60).json()
        return any(d["online"] for d in listed)

    try:
        wait_until(online, what="the agent to come online")
        yield process
    finally:
        process.kill()


def _results(report: dict) -> dict[tuple[str, str, str], dict]:
    return {(r["model"], r["device"], r["metric"]): r for r in report["results"]}


def test_latency_and_memory_of_a_device_budget_are_measured_by_its_agent(
    live_server: LiveServer, project: dict, agent: AgentProcess
) -> None:
    checks = f"/api/projects/{project['id']}/checks"
    with tab_socket(live_server, project["id"]) as tab:
        response = _post(live_server, checks, {})
        assert response.status_code == 200, response.text
        report = response.json()
        # A command that fails on purpose: its error event comes after everything the check sent.
        command(tab, "devices", "device.detach", sid="no-such-session")
        tab_events = []
        while not tab_events or tab_events[-1]["data"].get("ref") != "device.detach":
            tab_events.append(json.loads(tab.recv(timeout=60)))

    found = _results(report)
    assert set(found) == {("model.mnn", "pixel", m) for m in ("latency_ms", "memory_mb", "size_mb")} | {
        ("slow.mnn", "pixel", "latency_ms"), ("model.mnn", "nope", "latency_ms")}
    fast = found[("model.mnn", "pixel", "latency_ms")]
    memory = found[("model.mnn", "pixel", "memory_mb")]
    assert fast["passed"] is True and 0 < fast["value"] < 10000 and fast["detail"] is None
    assert memory["passed"] is True and 0 < memory["value"] < 1000
    slow = found[("slow.mnn", "pixel", "latency_ms")]
    assert slow["passed"] is False and slow["value"] > slow["limit"] == 0.0001
    assert slow["value"] > fast["value"]  # the slow model does ~50x the work
    unknown = found[("model.mnn", "nope", "latency_ms")]
    assert unknown["passed"] is False and unknown["value"] is None
    assert unknown["detail"] == "no paired device is named 'nope'"
    assert report["passed"] is False

    # Only the budgets' model files went to the device, into the project's session folder.
    folders = list((agent.home / "sessions").rglob("files"))
    assert len(folders) == 1
    assert sorted(p.name for p in folders[0].iterdir()) == ["model.mnn", "slow.mnn"]
    # The files were pushed as a deploy is (the tab sees it); the device's results came back to
    # the check, not to the project's tabs.
    pushed = [e["data"]["sent"] for e in tab_events if e["type"] == "sync.done"]
    assert pushed == [["model.mnn"], ["slow.mnn"]]
    assert not [e for e in tab_events if e["type"] == "bench.result"]

    agent.kill()
    wait_until(lambda: not httpx.get(f"{live_server.url}/api/devices", headers=live_server.auth,
                                     timeout=60).json()[0]["online"], what="the agent to go offline")
    offline = _results(_post(live_server, checks, {"device": "pixel"}).json())
    assert offline[("model.mnn", "pixel", "size_mb")]["passed"] is True  # measured here
    gone = offline[("model.mnn", "pixel", "latency_ms")]
    assert gone["value"] is None and gone["detail"] == "the device 'pixel' is offline"
