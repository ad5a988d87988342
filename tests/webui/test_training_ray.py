"""Training on a Ray cluster in a real browser, on the session's real Ray head: the Ray settings,
a job submitted from the new-job dialog (committing the work tree first), its log and loss chart
while it runs, a sweep whose table fills with final metrics and whose runs share one chart, and
one run's model brought into the project with one click."""

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.fakes.ray_cluster import RayHead
from tests.server.training.ray.conftest import TRAIN
from tests.webui.conftest import ConsoleErrors
from tests.webui.workbench import create_project, open_project

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]
JOB_WAIT = 120_000  # a Ray job's start takes seconds on a busy machine


def _save_ray_settings(page: Page, head: RayHead, shared: Path) -> None:
    page.get_by_test_id("ray-settings-open").click()
    dialog = page.get_by_test_id("ray-settings-dialog")
    dialog.get_by_test_id("ray-address").fill(head.address)
    dialog.get_by_test_id("ray-token").fill("Bearer only-for-a-proxy")
    dialog.get_by_test_id("ray-storage-shared_path").click()
    dialog.get_by_test_id("ray-shared_path").fill(str(shared))
    dialog.get_by_test_id("ray-save").click()
    expect(dialog).to_have_count(0)
    page.get_by_test_id("ray-settings-open").click()  # the token shows only as stored
    expect(dialog.get_by_test_id("ray-token-stored")).to_be_visible()
    expect(dialog.get_by_test_id("ray-token")).to_have_value("")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)


def _submit_ray_job(page: Page, release: Path) -> None:
    page.get_by_test_id("job-new").click()
    dialog = page.get_by_test_id("new-job-dialog")
    dialog.get_by_test_id("job-backend-ray").click()
    dialog.get_by_test_id("job-command").fill("python train.py")
    dialog.get_by_test_id("job-env").fill(f"RELEASE={release}")
    dialog.get_by_test_id("job-start").click()
    step = dialog.get_by_test_id("commit-step")
    expect(step).to_contain_text("train.py")
    step.get_by_test_id("push-message").fill("Add the training script")
    step.get_by_test_id("push-confirm").click()
    expect(dialog).to_have_count(0)


def _run_sweep(page: Page) -> None:
    page.get_by_test_id("sweep-new").click()
    dialog = page.get_by_test_id("sweep-dialog")
    expect(dialog.get_by_test_id("job-backend-ray")).to_have_attribute("aria-selected", "true")
    dialog.get_by_test_id("sweep-command").fill("python train.py")
    dialog.get_by_test_id("sweep-grid").fill("--lr 0.1,0.01")
    dialog.get_by_test_id("sweep-start").click()
    expect(dialog).to_have_count(0)


def test_train_and_sweep_on_ray(context: BrowserContext, live_server, ray_cluster: RayHead,
                                tmp_path: Path, console_errors: ConsoleErrors) -> None:
    console_errors.allow(r"409 .*/jobs\)")  # the first start asks to commit
    project = create_project(live_server, "onray")
    (Path(project["path"]) / "train.py").write_text(TRAIN)
    init = httpx.post(f"{live_server.url}/api/projects/{project['id']}/git/init", headers=live_server.auth)
    assert init.status_code == 201, init.text
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-training").click()
    _save_ray_settings(page, ray_cluster, tmp_path / "shared")
    release = tmp_path / "release"
    _submit_ray_job(page, release)

    row = page.get_by_test_id("job-row")
    expect(row).to_contain_text("Ray")
    expect(row).to_have_attribute("data-status", "running", timeout=JOB_WAIT)
    view = page.get_by_test_id("job-view")
    # Live: the log and the loss chart fill while the job waits for its release.
    log = view.get_by_test_id("job-log").locator(".xterm-rows")
    expect(log).to_contain_text("MNNWB_METRIC", timeout=JOB_WAIT)
    expect(view.locator("[data-testid=metric-chart][data-metric=loss] .u-legend")).to_contain_text("loss")
    expect(row).to_have_attribute("data-status", "running")
    release.touch()
    expect(row).to_have_attribute("data-status", "succeeded", timeout=JOB_WAIT)

    _run_sweep(page)
    table = page.get_by_test_id("sweep-table")
    runs = table.get_by_test_id("sweep-run")
    expect(runs).to_have_count(2)
    for index in range(2):
        expect(runs.nth(index)).to_have_attribute("data-status", "succeeded", timeout=JOB_WAIT)
    expect(table.locator("td[data-metric=lr]")).to_have_text(["0.1", "0.01"])
    expect(page.get_by_test_id("sweep-chart").locator(".u-legend")).to_contain_text("lr=0.01")
    best = runs.nth(1)
    job_id = best.get_attribute("data-job-id")
    best.get_by_test_id("sweep-use-model").click()
    pulled = best.get_by_test_id("sweep-pulled")
    expect(pulled).to_have_text(f"✓ artifacts/{job_id}/")
    pulled.click()
    folder = page.locator(f"[data-testid=tree-item][data-path='artifacts/{job_id}']")
    expect(folder).to_have_class(re.compile(r"\bselected\b"))
    expect(page.locator(f"[data-testid=tree-item][data-path='artifacts/{job_id}/notes.txt']")).to_be_visible()
    page.screenshot(path=tmp_path / "ray.png")
