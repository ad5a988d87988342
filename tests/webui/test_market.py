"""The market in the browser: browse and filter the built-ins from the home page, create a project
from one, publish a converted model from a project (pre-filled from its lineage; a second publish
of the same version is refused plainly), then find it in the market with its lineage, and follow
a file's lineage graph to the tool run that made it; add a built-in to the open project."""

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from server.market.builtin.real import CATALOG
from tests.fakes.models import conv_net
from tests.waiting import wait_until
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser

# The built-in packages are trained and converted the first time the market is listed.
BUILD_TIMEOUT_MS = 180_000
# The four trained built-ins and the real pretrained ones (tests/server/market/test_real_packages.py).
BUILTIN_COUNT = 4 + len(CATALOG)
SHA256 = re.compile(r"^[0-9a-f]{64}$")


def cards(page: Page):
    return page.get_by_test_id("market-card")


def browse_and_install(context: BrowserContext, live_server) -> None:
    page = context.new_page()
    page.goto(live_server.url)
    page.get_by_test_id("home-market").click()
    expect(cards(page)).to_have_count(BUILTIN_COUNT, timeout=BUILD_TIMEOUT_MS)
    page.get_by_test_id("market-search").fill("digits")
    expect(cards(page)).to_have_count(1)
    expect(cards(page).first).to_have_attribute("data-id", "digits")
    page.get_by_test_id("market-search").fill("")
    page.get_by_test_id("market-task").select_option("anomaly-detection")
    expect(cards(page)).to_have_count(1)
    expect(cards(page).first).to_have_attribute("data-id", "vibration-anomaly")
    page.get_by_test_id("market-task").select_option("")
    page.get_by_test_id("market-source").select_option("builtin")
    expect(cards(page)).to_have_count(BUILTIN_COUNT)

    page.locator("[data-testid=market-card][data-id=digits]").click()
    card = page.get_by_test_id("market-page")
    expect(card.get_by_test_id("market-readme").locator("h1")).to_have_text("Handwritten digits")
    model = card.locator("[data-testid=market-file][data-path$='.mnn']").first
    expect(model.locator(".market-sha")).to_have_text(SHA256)
    card.get_by_test_id("market-create-project").click()
    page.get_by_test_id("prompt-input").fill("digits app")
    with context.expect_page() as opened:
        page.get_by_test_id("prompt-ok").click()
    project_page = opened.value
    expect(project_page.get_by_test_id("project-title")).to_have_text("digits app")
    for folder in ("market", "market/digits"):
        project_page.locator(f"[data-testid=tree-item][data-path='{folder}']").click()
    for name in ("algorithm.toml", "demo.py", "README.md"):
        expect(project_page.locator(f"[data-testid=tree-item][data-path='market/digits/{name}']")).to_be_visible()


def converted_model(live_server, project: dict) -> str:
    """net.onnx → net.fp16.mnn through the tools API: a file with a recorded lineage."""
    conv_net(Path(project["path"], "net.onnx"))
    url = f"{live_server.url}/api/projects/{project['id']}/tools/convert"
    started = httpx.post(url, headers=live_server.auth, json={"model": "net.onnx", "fp16": True})
    assert started.status_code == 202, started.text
    run_url = f"{live_server.url}/api/tool-runs/{started.json()['id']}"
    run = wait_until(lambda: (r := httpx.get(run_url, headers=live_server.auth).json())["status"]
                     not in ("queued", "running") and r, 60, "the conversion to finish")
    assert run["status"] == "succeeded", run["error"]
    return started.json()["id"]


def menu(page: Page, path: str, item: str) -> None:
    page.locator(f"[data-testid=tree-item][data-path='{path}']").click(button="right")
    page.get_by_test_id(item).click()


def publish(page: Page) -> None:
    menu(page, "net.fp16.mnn", "menu-publish")
    dialog = page.get_by_test_id("publish-dialog")
    expect(dialog.get_by_test_id("publish-id")).to_have_value("net-fp16")
    expect(dialog.get_by_test_id("publish-version")).to_have_value("1.0.0")
    expect(dialog.get_by_test_id("publish-files")).to_have_value("net.fp16.mnn\nnet.onnx\nREADME.md")
    dialog.get_by_test_id("publish-task").fill("image-classification")
    dialog.get_by_test_id("publish-ok").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_test_id("toast-info")).to_contain_text("Published net-fp16 1.0.0")

    menu(page, "net.fp16.mnn", "menu-publish")
    expect(dialog.get_by_test_id("publish-version")).to_have_value("1.0.1")
    dialog.get_by_test_id("publish-version").fill("1.0.0")
    dialog.get_by_test_id("publish-ok").click()
    expect(dialog.get_by_test_id("publish-error")).to_have_text(
        "Version 1.0.0 of net-fp16 is already published. Choose another version.")
    dialog.get_by_test_id("publish-cancel").click()


def test_browse_install_publish_and_follow_the_lineage(
    context: BrowserContext, live_server, console_errors, builtins_ready
) -> None:
    console_errors.allow(r"409 .*/publish")  # the second publish of 1.0.0, refused on purpose
    browse_and_install(context, live_server)
    project = create_project(live_server, "vision")
    run_id = converted_model(live_server, project)
    page = open_project(context, live_server, project)
    publish(page)

    page.get_by_test_id("action-market").click()
    market = page.get_by_test_id("market-panel")
    market.get_by_test_id("market-source").select_option("registry")
    expect(market.get_by_test_id("market-card")).to_have_count(1)
    market.locator("[data-testid=market-card][data-id=net-fp16]").click()
    card = market.get_by_test_id("market-page")
    expect(card.locator("[data-testid=market-file][data-path='net.onnx']")).to_be_visible()
    graph = card.get_by_test_id("lineage-view")
    expect(graph.locator(f"[data-testid=lineage-node][data-id='tool_run:{run_id}']")).to_be_visible()
    card.get_by_test_id("market-back").click()
    market.get_by_test_id("market-source").select_option("builtin")
    market.locator("[data-testid=market-card][data-id=breast-cancer]").click()
    market.get_by_test_id("market-add-here").click()
    added = re.compile(r"Added \d+ files: market/breast-cancer/")
    expect(page.get_by_test_id("toast-info").filter(has_text=added)).to_be_visible()
    expect(page.locator("[data-testid=tree-item][data-path='market']")).to_be_visible()

    menu(page, "net.fp16.mnn", "menu-lineage")
    panel = page.locator("[data-testid=lineage-panel][data-path='net.fp16.mnn']")
    node = panel.locator(f"[data-testid=lineage-node][data-id='tool_run:{run_id}']")
    expect(panel.locator("[data-testid=lineage-node][data-kind=file]")).to_have_count(2)
    node.click()
    tool = page.locator("[data-testid=tool-panel][data-tool=convert][data-model='net.onnx']")
    expect(tool).to_have_attribute("data-run", run_id)
    expect(tool).to_have_attribute("data-status", "succeeded")


def job_with_output(live_server, project: dict) -> dict:
    """A commit, then a local job that writes outputs/<job>/model.onnx, through the API."""
    api = f"{live_server.url}/api/projects/{project['id']}"
    assert httpx.post(f"{api}/git/init", headers=live_server.auth, json={}).status_code == 201
    paths = [e["path"] for e in httpx.get(f"{api}/git/status", headers=live_server.auth).json()["untracked"]]
    assert httpx.post(f"{api}/git/stage", headers=live_server.auth, json={"paths": paths}).status_code == 200
    body = {"message": "first", "author": "A <a@example.com>"}
    assert httpx.post(f"{api}/git/commit", headers=live_server.auth, json=body).status_code in (200, 201)
    command = ("python -c \"import os; open(os.path.join(os.environ['MNNWB_OUTPUT_DIR'], 'model.onnx'), "
               "'wb').write(b'weights' * 100)\"")
    body = {"backend": "local", "command": command}
    started = httpx.post(f"{api}/jobs", headers=live_server.auth, json=body)
    assert started.status_code == 201, started.text
    job_url = f"{live_server.url}/api/jobs/{started.json()['id']}"
    job = wait_until(lambda: (j := httpx.get(job_url, headers=live_server.auth).json())["status"]
                     not in ("queued", "running") and j, 60, "the job to end")
    assert job["status"] == "succeeded", job
    return job


def test_a_lineage_graph_leads_to_the_job_and_the_commit(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "trained")
    job = job_with_output(live_server, project)
    page = open_project(context, live_server, project)
    for folder in ("outputs", f"outputs/{job['id']}"):
        page.locator(f"[data-testid=tree-item][data-path='{folder}']").click()
    menu(page, f"outputs/{job['id']}/model.onnx", "menu-lineage")
    panel = page.get_by_test_id("lineage-panel")
    panel.locator(f"[data-testid=lineage-node][data-id='job:{job['id']}']").click()
    row = page.locator(f"[data-testid=job-row][data-job-id='{job['id']}']")
    expect(row).to_have_attribute("aria-selected", "true")
    panel.locator(f"[data-testid=lineage-node][data-id='commit:{job['commit']}']").click()
    expect(page.get_by_test_id("git-commit-detail")).to_have_attribute("data-sha", job["commit"])


def test_a_card_answers_what_it_takes_and_gives_and_the_hub_shows_offline(
    context: BrowserContext, live_server, builtins_ready
) -> None:
    page = context.new_page()
    page.goto(live_server.url)
    page.get_by_test_id("home-market").click()
    # The MNN hub is a closed port in tests: offline, with the reason, while the built-ins list.
    hub = page.locator("[data-testid=market-source-state][data-name=mnn-hub]")
    expect(hub).to_have_attribute("data-state", "offline", timeout=BUILD_TIMEOUT_MS)
    expect(hub).to_have_text("MNN hub: offline (refused)")
    builtin = page.locator("[data-testid=market-source-state][data-name=builtin]")
    expect(builtin).to_have_attribute("data-state", "online")
    page.locator("[data-testid=market-card][data-id=digits]").click()
    card = page.get_by_test_id("market-page")
    given = card.locator("[data-testid=market-input][data-name=input]")
    expect(given.get_by_test_id("market-shape")).to_have_text("[1, 1, 8, 8]")
    expect(given.get_by_test_id("market-preprocessing")).to_contain_text("size 8×8")
    expect(given.get_by_test_id("market-preprocessing")).to_contain_text("std 16")
    output = card.locator("[data-testid=market-output][data-name=probabilities]")
    labels = output.get_by_test_id("market-labels")
    expect(labels.locator("summary")).to_have_text("10 labels")
    expect(labels.locator("li").first).not_to_be_visible()  # collapsed until asked for
    labels.locator("summary").click()
    expect(labels.locator("li")).to_have_count(10)
    expect(card.get_by_test_id("market-license")).to_have_text("BSD-3-Clause")
    expect(card.get_by_test_id("market-eval-set")).to_have_text(
        "scikit-learn digits, 20% held out, 360 samples")
    expect(card.get_by_test_id("market-accuracy")).to_contain_text(re.compile(r"\d+\.\d % measured on"))
    row = card.get_by_test_id("market-latency-row")
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(1)).to_have_text("1")
    expect(row.locator("td").nth(3)).to_have_text("200")
    expect(card.get_by_test_id("market-demo-command")).to_have_text("python market/digits/demo.py")


def test_the_publish_dialog_takes_license_and_accuracy_with_its_set_and_the_card_shows_them(
    context: BrowserContext, live_server
) -> None:
    project = create_project(live_server, "vision")
    converted_model(live_server, project)
    Path(project["path"], "LICENSE").write_text("Apache License\nVersion 2.0\n")
    page = open_project(context, live_server, project)
    menu(page, "net.fp16.mnn", "menu-publish")
    dialog = page.get_by_test_id("publish-dialog")
    files = dialog.get_by_test_id("publish-files")
    expect(files).to_have_value(re.compile("net.fp16.mnn"))
    files.fill(files.input_value() + "\nLICENSE")
    dialog.get_by_test_id("publish-license").fill("Apache-2.0")
    dialog.get_by_test_id("publish-accuracy").fill("0.91")
    expect(dialog.get_by_test_id("publish-invalid")).to_contain_text("together")
    expect(dialog.get_by_test_id("publish-ok")).to_be_disabled()
    dialog.get_by_test_id("publish-eval-set").fill("50 desk photos")
    expect(dialog.get_by_test_id("publish-preview")).to_contain_text("91.0 % on 50 desk photos")
    expect(dialog.get_by_test_id("publish-preview")).to_contain_text("license Apache-2.0")
    dialog.get_by_test_id("publish-ok").click()
    expect(dialog).to_be_hidden()

    page.get_by_test_id("action-market").click()
    market = page.get_by_test_id("market-panel")
    market.get_by_test_id("market-source").select_option("registry")
    market.locator("[data-testid=market-card][data-id=net-fp16]").click()
    card = market.get_by_test_id("market-page")
    expect(card.get_by_test_id("market-license")).to_contain_text("Apache-2.0 — text in LICENSE")
    card.get_by_test_id("market-license-text").locator("summary").click()
    text = card.get_by_test_id("market-license-text").locator("pre")
    expect(text).to_have_text("Apache License\nVersion 2.0\n")
    expect(card.get_by_test_id("market-eval-set")).to_have_text("50 desk photos")
    expect(card.get_by_test_id("market-accuracy")).to_contain_text("91.0 %")
    # This model has no spec and no algorithm.toml: the card says so rather than guessing.
    expect(card.get_by_test_id("market-no-inputs")).to_have_text("No inputs declared.")
    expect(card.get_by_test_id("market-no-latency")).to_have_text("No latency measured.")
    expect(card.locator("[data-testid=market-model][data-path='net.fp16.mnn']")).to_contain_text("MNN model")
