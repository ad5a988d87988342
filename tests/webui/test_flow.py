"""The Flow panel in the browser: a project whose template's job trained a model (real lineage),
its Convert button opens the convert form filled with that model, the run turns the step done
and the Quantize button then opens its form filled with the converted model and the dataset;
the budgets template names the converted model; the artifact opens its lineage; committing an
edit of the training script turns train and convert stale in the open panel. A project
deployed once to a real agent, whose model changed since, deploys again from the flow's button."""

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, expect

from tests.fakes import models
from tests.server.devices.test_devices_api import command, next_event, tab_socket
from tests.server.flow.test_device_steps import convert
from tests.waiting import wait_until
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 60_000


def git(live_server, project: dict, op: str, body: dict) -> None:
    url = f"{live_server.url}/api/projects/{project['id']}/git/{op}"
    response = httpx.post(url, headers=live_server.auth, json=body)
    assert response.status_code in (200, 201), response.text


def trained_project(live_server) -> tuple[dict, str]:
    """The digits classifier trained for one epoch; the path of the model.onnx it wrote."""
    project = create_project(live_server, "flow", template="pytorch-classifier")
    git(live_server, project, "init", {})
    git(live_server, project, "stage", {"paths": ["README.md", "requirements.txt", "train.py"]})
    git(live_server, project, "commit", {"message": "digits", "author": "A <a@b.c>"})
    for split in ("train", "val"):
        for label in ("0", "1"):
            models.calibration_images(Path(project["path"], "data", split, label), count=2, size=8)
    started = httpx.post(f"{live_server.url}/api/projects/{project['id']}/jobs", headers=live_server.auth,
                         json={"backend": "local", "command": "python train.py --epochs 1"})
    assert started.status_code == 201, started.text
    url = f"{live_server.url}/api/jobs/{started.json()['id']}"
    job = wait_until(lambda: (j := httpx.get(url, headers=live_server.auth).json())["status"]
                     not in ("queued", "running") and j, 180, "the training job to end")
    assert job["status"] == "succeeded", job
    return project, f"outputs/{job['id']}/model.onnx"


def test_convert_from_the_flow_then_quantize_is_filled(context: BrowserContext, live_server) -> None:
    project, onnx = trained_project(live_server)
    page = open_project(context, live_server, project)
    expect(page.get_by_test_id("action-flow").locator(".ci.ci-rocket")).to_be_visible()  # the title bar's
    page.keyboard.press("F1")
    expect(page.locator("[data-testid=palette-item][data-command=flow]")).to_contain_text("Show Flow")
    page.get_by_test_id("palette-input").fill("show flow")
    page.keyboard.press("Enter")
    flow = page.get_by_test_id("flow-panel")
    expect(flow.get_by_test_id("flow-step-train")).to_have_attribute("data-state", "done")
    expect(flow.get_by_test_id("flow-artifact-train")).to_have_text(onnx)
    expect(flow.get_by_test_id("flow-step-convert")).to_have_attribute("data-state", "todo")
    expect(flow.get_by_test_id("flow-next-quantize")).to_have_text("Quantize")

    flow.get_by_test_id("flow-next-convert").click()
    convert = page.locator(f"[data-testid=tool-panel][data-tool=convert][data-model='{onnx}']")
    expect(convert.get_by_test_id("tool-field-model")).to_have_value(onnx)
    convert.get_by_test_id("tool-run").click()
    expect(convert).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    mnn = convert.get_by_test_id("tool-output").inner_text()
    assert mnn.endswith(".mnn")

    page.locator(".dv-tab", has_text="Flow").click()
    expect(flow.get_by_test_id("flow-step-convert")).to_have_attribute("data-state", "done")
    converted = flow.get_by_test_id("flow-artifact-convert")
    expect(converted).to_have_text(mnn)
    flow.get_by_test_id("flow-next-quantize").click()
    quantize = page.locator(f"[data-testid=tool-panel][data-tool=quantize][data-model='{mnn}']")
    expect(quantize.get_by_test_id("tool-field-model")).to_have_value(mnn)
    expect(quantize.get_by_test_id("tool-field-dataset")).to_have_value("data")

    page.locator(".dv-tab", has_text="Flow").click()
    flow.get_by_test_id("flow-next-budgets").click()
    template = flow.get_by_test_id("flow-budget-template")
    expect(template).to_contain_text(f'[[budget]]\nmodel = "{mnn}"\nmax_size_mb = ')
    converted.click()
    lineage = page.locator(f"[data-testid=lineage-panel][data-path='{mnn}']")
    expect(lineage.locator("[data-testid=lineage-node][data-id^='job:']")).to_be_visible()

    page.locator(".dv-tab", has_text="Flow").click()
    expect(flow.get_by_test_id("flow-step-train")).to_have_attribute("data-state", "done")
    script = Path(project["path"], "train.py")
    script.write_text(script.read_text() + "\n# a wider head next time\n")
    git(live_server, project, "stage", {"paths": ["train.py"]})
    git(live_server, project, "commit", {"message": "train: a note", "author": "A <a@b.c>"})
    for step in ("train", "convert"):  # no reload pressed: the commit's event reloads the flow
        expect(flow.get_by_test_id(f"flow-step-{step}")).to_have_attribute("data-state", "stale")


def test_deploy_from_the_flow_to_the_device_used_last(context: BrowserContext, live_server, board) -> None:
    project = create_project(live_server, "flowdeploy")
    pid = project["id"]
    models.conv_net(Path(project["path"], "net.onnx"), size=8)
    convert(live_server, pid, "net.onnx", "net.mnn")
    opened = httpx.post(f"{live_server.url}/api/projects/{pid}/devices/{board['id']}/sessions",
                        headers=live_server.auth)
    assert opened.status_code == 201, opened.text
    with tab_socket(live_server, pid) as ws:  # a deploy by hand first: the flow knows the device
        command(ws, "devices", "sync.start", sid=opened.json()["sid"])
        next_event(ws, "flow.recorded")
    convert(live_server, pid, "net.onnx", "net.mnn", fp16=True, overwrite=True)

    page = open_project(context, live_server, project)
    page.get_by_test_id("action-flow").click()
    flow = page.get_by_test_id("flow-panel")
    expect(flow.get_by_test_id("flow-step-deploy")).to_have_attribute("data-state", "stale")
    expect(flow.get_by_test_id("flow-detail-deploy")).to_contain_text("board has an older net.mnn")
    expect(flow.get_by_test_id("flow-next-deploy")).to_have_text("Deploy to board")
    flow.get_by_test_id("flow-next-deploy").click()
    page.locator(".dv-tab", has_text="Flow").click()
    expect(flow.get_by_test_id("flow-step-deploy")).to_have_attribute("data-state", "done")
    expect(flow.get_by_test_id("flow-artifact-deploy")).to_have_text("net.mnn")
