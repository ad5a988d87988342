"""A device's facts stay true in the Devices panel: a real agent on a fresh device (a venv without
MNN) shows "no MNN"; MNN and numpy are installed while it runs, Refresh facts is pressed, and the
row shows MNN's version and the doctor's MNN check passing, with the device never paired again."""

from importlib import metadata
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, expect

from tests.conftest import LiveServer
from tests.server.devices.agent_venv import DeviceShell, device_env, make_venv
from tests.server.devices.test_device_facts import install_by_link
from tests.waiting import wait_until
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser


def test_refresh_facts_shows_mnn_installed_on_a_running_device(
    context: BrowserContext, live_server: LiveServer, tmp_path: Path
) -> None:
    pairing = httpx.post(f"{live_server.url}/api/devices/pairings", json={"name": "board"},
                         headers=live_server.auth).json()
    venv = make_venv(tmp_path / "venv")
    device = DeviceShell(pairing["command"], tmp_path / "empty", device_env(venv, tmp_path / "home"))
    try:
        listed = f"{live_server.url}/api/devices"
        wait_until(lambda: any(d["online"] for d in httpx.get(listed, headers=live_server.auth).json()),
                   60, f"the device to come online: {device.log()}")
        page = open_project(context, live_server, create_project(live_server, "facts"))
        page.get_by_test_id("action-devices").click()
        row = page.get_by_test_id("devices-panel").get_by_test_id("device-row")
        expect(row.get_by_test_id("device-facts")).to_contain_text("no MNN")

        install_by_link(venv, ("numpy", "MNN"))
        row.get_by_test_id("device-refresh-facts").click()
        expect(row.get_by_test_id("device-facts")).to_contain_text(f"MNN {metadata.version('MNN')}",
                                                                   timeout=90_000)
        doctor = row.get_by_test_id("device-doctor")
        doctor.locator("summary").click()
        mnn = doctor.locator("[data-testid=doctor-check][data-name=MNN]")
        expect(mnn).to_have_attribute("data-ok", "true")
        expect(row).to_have_attribute("data-online", "true")
        assert device.log().count("connected to") == 1, device.log()
    finally:
        device.kill()
