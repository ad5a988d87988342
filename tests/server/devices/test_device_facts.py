"""A device's facts stay true without pairing again: a real agent on a fresh device (a venv
without MNN) gets MNN and numpy installed while it runs, sees the change by itself and sends its
new facts (MNN's version, its backends, the doctor's checks); the tab with a session on the device
gets them as an event and the registry keeps them. Refresh asks the agent to probe again."""

from importlib import metadata
from pathlib import Path

import httpx
from websockets.sync.client import ClientConnection

from tests.conftest import LiveServer
from tests.server.devices.agent_venv import DeviceShell, device_env, make_venv
from tests.server.devices.test_devices_api import command, devices, next_event, tab_socket
from tests.waiting import SCALE, wait_until


def install_by_link(venv: Path, names: tuple[str, ...]) -> None:
    """What the doctor's fix does (pip into the device's Python), from the test interpreter's own
    files: every top-level entry of each distribution linked into the venv, nothing downloaded."""
    [site] = (venv / "lib").glob("python3*/site-packages")
    for name in names:
        dist = metadata.distribution(name)
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in sorted(tops):
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (site / top).exists():
                (site / top).symlink_to(source)


def facts_event(ws: ClientConnection, reason: str) -> dict:
    while True:
        data = next_event(ws, "device.facts", timeout=90 * SCALE)
        if data["reason"] == reason:
            return data


def test_installing_mnn_on_a_running_device_reaches_the_tab_without_pairing_again(
    live_server: LiveServer, tmp_path: Path
) -> None:
    venv = make_venv(tmp_path / "venv")
    auth = live_server.auth
    pairing = httpx.post(f"{live_server.url}/api/devices/pairings", json={"name": "board"},
                         headers=auth).json()
    device = DeviceShell(pairing["command"], tmp_path / "empty", device_env(venv, tmp_path / "home"))
    try:
        wait_until(lambda: any(d["online"] for d in devices(live_server)), 60,
                   f"the device to come online: {device.log()}")
        [before] = devices(live_server)
        assert before["info"]["mnn"] is None and before["info"]["backends"] is None
        project = httpx.post(f"{live_server.url}/api/projects", json={"name": "facts"},
                             headers=auth).json()
        with tab_socket(live_server, project["id"]) as ws:
            command(ws, "devices", "device.attach", device_id=before["id"])
            next_event(ws, "session.state")
            install_by_link(venv, ("numpy", "MNN"))
            changed = facts_event(ws, "changed")
            assert changed["device_id"] == before["id"]
            info = changed["info"]
            assert info["mnn"] == metadata.version("MNN")
            assert {"name": "CPU", "available": True, "reason": ""} in info["backends"]
            checks = {c["name"]: c for c in info["checks"]}
            assert checks["MNN"]["ok"] and checks["numpy"]["ok"], checks

            [after] = devices(live_server)
            assert after["online"] and after["info"]["mnn"] == info["mnn"]
            assert after["info"]["backends"] == info["backends"]

            asked = httpx.post(f"{live_server.url}/api/devices/{before['id']}/facts/refresh",
                               headers=auth)
            assert asked.status_code == 202 and asked.json() == {"device_id": before["id"],
                                                                 "status": "asked"}
            assert facts_event(ws, "asked")["info"]["mnn"] == info["mnn"]
        assert device.log().count("connected to") == 1, device.log()
    finally:
        device.kill()
    wait_until(lambda: not devices(live_server)[0]["online"], what="the device to go offline")
    offline = httpx.post(f"{live_server.url}/api/devices/{before['id']}/facts/refresh", headers=auth)
    assert (offline.status_code, offline.json()["code"]) == (503, "device_offline")
    unknown = httpx.post(f"{live_server.url}/api/devices/nope/facts/refresh", headers=auth)
    assert (unknown.status_code, unknown.json()["code"]) == (404, "not_found")
