"""Pairing a device as a person does: the dialog's QR code holds the command shown (decoded with
zxing-cpp), that command run on a fresh device brings it online, and the Devices panel shows the
device's doctor report; the device picked in one panel is the tab's device, across reloads."""

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import zxingcpp
from playwright.sync_api import BrowserContext, Locator, expect

from tests.conftest import LiveServer
from tests.server.devices.agent_venv import DeviceShell, device_env, make_venv
from tests.webui.agents import paired_agent
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser

# The QR image's pixels, drawn on a white canvas at its natural size, as one grey byte per pixel.
READ_PIXELS = """img => {
  const canvas = document.createElement('canvas');
  canvas.width = img.naturalWidth;
  canvas.height = img.naturalHeight;
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.drawImage(img, 0, 0);
  const rgba = g.getImageData(0, 0, canvas.width, canvas.height).data;
  const grey = new Array(rgba.length / 4);
  for (let i = 0; i < grey.length; i++) grey[i] = rgba[i * 4 + 1];
  return { width: canvas.width, height: canvas.height, grey };
}"""


def decode_qr(image: Locator) -> str:
    pixels = image.evaluate(READ_PIXELS)
    grey = np.array(pixels["grey"], dtype=np.uint8).reshape(pixels["height"], pixels["width"])
    [found] = zxingcpp.read_barcodes(grey)
    return str(found.text)


def test_pair_by_the_qr_code_command_and_read_the_doctor_report(
    context: BrowserContext, live_server: LiveServer, tmp_path: Path
) -> None:
    project = create_project(live_server, "pairing")
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-devices").click()
    panel = page.get_by_test_id("devices-panel")
    panel.get_by_test_id("pair-device").click()
    dialog = page.get_by_test_id("pair-dialog")
    dialog.get_by_test_id("pair-name").fill("phone")
    dialog.get_by_test_id("pair-create").click()
    expect(dialog.get_by_test_id("pair-url")).to_have_text(live_server.url)
    qr = dialog.get_by_test_id("pair-qr")
    expect(qr).to_be_visible()
    command = dialog.get_by_test_id("pair-command").inner_text()
    assert command.startswith('python3 -c "')
    assert decode_qr(qr) == command
    page.screenshot(path=tmp_path / "pair-qr.png")

    venv = make_venv(tmp_path / "venv")
    device = DeviceShell(command, tmp_path / "empty", device_env(venv, tmp_path / "home"))
    try:
        expect(dialog.get_by_test_id("pair-status")).to_contain_text("phone is connected", timeout=60_000)
        dialog.get_by_test_id("pair-done").click()
        row = panel.get_by_test_id("device-row")
        expect(row).to_have_attribute("data-online", "true")
        doctor = row.get_by_test_id("device-doctor")
        expect(doctor).to_contain_text("MNN")
        doctor.locator("summary").click()
        mnn = doctor.locator("[data-testid=doctor-check][data-name=MNN]")
        expect(mnn).to_have_attribute("data-ok", "false")
        expect(mnn).to_contain_text("not installed")
        expect(mnn).to_contain_text("pip install")
        websockets = doctor.locator("[data-testid=doctor-check][data-name=websockets]")
        expect(websockets).to_have_attribute("data-ok", "true")
        expect(doctor.get_by_test_id("doctor-clock")).to_contain_text("the workbench's")
        page.screenshot(path=tmp_path / "doctor.png")
    finally:
        device.kill()


@pytest.fixture
def device(live_server: LiveServer, tmp_path: Path) -> Iterator[dict]:
    with paired_agent(live_server, tmp_path / "agent") as (found, _agent):
        yield found


def test_the_device_picked_in_one_panel_is_the_tabs_device_across_reloads(
    context: BrowserContext, live_server: LiveServer, device: dict
) -> None:
    project = create_project(live_server, "picked")
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-perf").click()
    page.get_by_test_id("perf-panel").get_by_test_id("device-picker").select_option(device["id"])
    page.get_by_test_id("action-run-debug").click()
    expect(page.get_by_test_id("run-panel").get_by_test_id("device-picker")).to_have_value(device["id"])

    page.reload()
    expect(page.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    page.get_by_test_id("action-run-debug").click()
    expect(page.get_by_test_id("run-panel").get_by_test_id("device-picker")).to_have_value(device["id"])
    page.get_by_test_id("action-perf").click()
    expect(page.get_by_test_id("perf-panel").get_by_test_id("device-picker")).to_have_value(device["id"])

    other = open_project(context, live_server, project)
    other.get_by_test_id("action-run-debug").click()
    expect(other.get_by_test_id("run-panel").get_by_test_id("device-picker")).to_have_value("")
