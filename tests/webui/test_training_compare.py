"""Iterating on training in a real browser: two real jobs of one script (their environment
differs) ticked and compared — both loss curves drawn on one chart, the table of their final
figures and of what differs — then "Use this model" on the older one, which the Flow panel's
train row names and convert's model follows, and Unmark."""

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, expect

from tests.server.training.test_marked_model import TRAIN
from tests.waiting import wait_until
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser


def run_job(live_server, project: dict, scale: int) -> dict:
    started = httpx.post(f"{live_server.url}/api/projects/{project['id']}/jobs", headers=live_server.auth,
                         json={"backend": "local", "command": "python train.py",
                               "config": {"env": {"SCALE": str(scale)}}})
    assert started.status_code == 201, started.text
    url = f"{live_server.url}/api/jobs/{started.json()['id']}"
    job = wait_until(lambda: (j := httpx.get(url, headers=live_server.auth).json())["status"]
                     not in ("queued", "running") and j, 60, "the training job to end")
    assert job["status"] == "succeeded", job
    return job


def test_compare_two_jobs_then_use_the_older_ones_model(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "iterate")
    Path(project["path"], "train.py").write_text(TRAIN)
    older, newer = run_job(live_server, project, 1), run_job(live_server, project, 3)
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-training").click()
    panel = page.get_by_test_id("training-panel")
    rows = panel.get_by_test_id("job-row")
    expect(rows).to_have_count(2)

    compare = panel.get_by_test_id("jobs-compare")
    expect(compare).to_be_disabled()
    for job in (older, newer):
        panel.locator(f"[data-testid=job-row][data-job-id='{job['id']}']").get_by_test_id("job-compare-check").check()
    expect(compare).to_have_text("⇆ Compare (2)")
    compare.click()
    view = panel.get_by_test_id("compare-view")
    chart = view.locator("[data-testid=compare-chart][data-metric=loss]")
    expect(chart).to_have_attribute("data-lines", "2")
    expect(chart.locator("canvas")).to_be_visible()
    legend = chart.locator(".u-legend .u-series")
    expect(legend).to_have_count(3)  # the step axis and one line per job
    expect(chart.locator(".u-legend")).to_contain_text(f"#{older['id'][:8]}")
    expect(chart.locator(".u-legend")).to_contain_text(f"#{newer['id'][:8]}")

    table = view.get_by_test_id("compare-table")
    env = table.locator("[data-testid=compare-difference][data-label='env SCALE'] td")
    expect(env).to_have_text(["1", "3"])  # the ticked order: older first
    expect(table.locator("[data-testid=compare-difference][data-label=command]")).to_have_count(0)
    loss = table.locator("[data-testid=compare-metric][data-metric=loss] td")
    expect(loss).to_have_text(["0.3333", "1"])  # scale / 3 at the last step
    expect(loss.nth(0)).to_have_class("compare-best")

    panel.locator(f"[data-testid=job-row][data-job-id='{older['id']}']").click()
    job_view = panel.get_by_test_id("job-view")
    expect(job_view).to_have_attribute("data-job-id", older["id"])
    job_view.get_by_test_id("job-use-model").click()
    expect(job_view.get_by_test_id("job-marked")).to_be_visible()
    expect(rows.filter(has=page.get_by_test_id("job-marked"))).to_have_attribute("data-job-id", older["id"])
    marked = httpx.get(f"{live_server.url}/api/projects/{project['id']}/jobs/marked",
                       headers=live_server.auth)
    assert marked.json()["job_id"] == older["id"]

    page.get_by_test_id("action-flow").click()
    flow = page.get_by_test_id("flow-panel")
    detail = flow.get_by_test_id("flow-detail-train")
    expect(detail).to_contain_text(f"model.onnx from job {older['id'][:8]} (marked)")
    expect(flow.get_by_test_id("flow-artifact-train")).to_have_text(f"outputs/{older['id']}/model.onnx")

    page.locator(".dv-tab", has_text="Training").click()
    job_view.get_by_test_id("job-unmark").click()
    expect(job_view.get_by_test_id("job-use-model")).to_be_visible()
    page.locator(".dv-tab", has_text="Flow").click()  # the mark's event reloads the flow
    expect(flow.get_by_test_id("flow-artifact-train")).to_have_text(f"outputs/{newer['id']}/model.onnx")
    expect(flow.get_by_test_id("flow-detail-train")).not_to_contain_text("(marked)")
