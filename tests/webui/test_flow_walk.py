"""The first day, walked in the browser from an empty data dir: a new project from the classifier
template, trained, then only the Flow panel's buttons through convert, quantize, evaluate, a
budget, deploy to a real agent process and a benchmark on it — every form filled, no path typed —
until every step is done; an edit of train.py committed turns convert and every step after it
stale. With ``MNNWB_TUTORIAL_SHOTS=1`` its screenshots are the ones docs/tutorial.md shows."""

import os
import re
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import BrowserContext, Locator, Page, expect

from server.core.config import REPO_ROOT
from tests.webui.workbench import editor_lines, open_file, save, tab

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

RUN_MS = 120_000
STEPS = ("data", "train", "convert", "quantize", "evaluate", "budgets", "deploy", "measure")
AFTER_TRAIN = STEPS[2:]
SHOT_COLOURS = 128


class Shots:
    """Screenshots of the walk: docs/tutorial/ when MNNWB_TUTORIAL_SHOTS=1, else the test's tmp
    folder (so the suite leaves the tree clean); each PNG quantized to stay small."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def take(self, what: Page | Locator, name: str) -> None:
        path = self.folder / f"{name}.png"
        what.screenshot(path=path)
        with Image.open(path) as image:
            small = image.convert("RGB").quantize(colors=SHOT_COLOURS)
        small.save(path, optimize=True)


@pytest.fixture
def shots(tmp_path: Path) -> Shots:
    tutorial = os.environ.get("MNNWB_TUTORIAL_SHOTS") == "1"
    return Shots(REPO_ROOT / "docs" / "tutorial" if tutorial else tmp_path / "shots")


def step(flow: Locator, name: str) -> Locator:
    return flow.get_by_test_id(f"flow-step-{name}")


def back_to_flow(page: Page) -> Locator:
    page.locator(".dv-tab", has_text="Flow").click()
    return page.get_by_test_id("flow-panel")


def create_from_template(context: BrowserContext, live_server) -> Page:
    home = context.new_page()
    home.goto(live_server.url + "/")
    expect(home.get_by_test_id("no-projects")).to_be_visible()  # an empty data dir
    home.get_by_test_id("new-project-name").fill("digits")
    home.get_by_test_id("template-pytorch-classifier").click()
    with context.expect_page() as created:
        home.get_by_test_id("new-project-submit").click()
    page = created.value
    expect(page).to_have_url(re.compile(r"/p/[0-9a-f]+$"))
    expect(page.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    home.close()
    return page


def commit_all(page: Page, group: str, message: str) -> None:
    """Stages the Source Control view's ``group`` of changes and commits it with ``message``."""
    page.get_by_test_id("action-git").click()
    panel = page.get_by_test_id("scm-panel")
    changes = panel.locator(f"[data-testid=scm-group][data-group={group}]")
    changes.locator(".scm-group-header").hover()  # its actions show under the pointer
    changes.get_by_test_id("scm-group-stage").click()
    panel.get_by_test_id("scm-message").fill(message)
    panel.get_by_test_id("scm-commit").click()
    expect(panel.get_by_test_id("scm-clean")).to_be_visible()


def train(page: Page, flow: Locator, shots: Shots) -> None:
    flow.get_by_test_id("flow-next-train").click()
    page.get_by_test_id("training-panel").get_by_test_id("job-new").click()
    dialog = page.get_by_test_id("new-job-dialog")
    expect(dialog.get_by_test_id("job-command")).to_have_value("python train.py")
    dialog.get_by_test_id("job-start").click()
    view = page.get_by_test_id("job-view")
    expect(view.get_by_test_id("job-header")).to_have_attribute("data-status", "succeeded", timeout=RUN_MS)
    shots.take(view.get_by_test_id("job-charts"), "02-trained")


def run_tool(page: Page, flow: Locator, tool: str, shots: Shots, shot: str, filled: dict[str, str]) -> None:
    """The step's button opens the tool's form, filled: run it as it stands."""
    model = flow.get_by_test_id(f"flow-artifact-{STEPS[STEPS.index(tool) - 1]}").inner_text()
    flow.get_by_test_id(f"flow-next-{tool}").click()
    panel = page.locator(f"[data-testid=tool-panel][data-tool={tool}]")
    expect(panel.get_by_test_id("tool-field-model")).to_have_value(model)
    for field, value in filled.items():
        expect(panel.get_by_test_id(f"tool-field-{field}")).to_have_value(value)
    shots.take(panel, shot)
    panel.get_by_test_id("tool-run").click()
    expect(panel).to_have_attribute("data-status", "succeeded", timeout=RUN_MS)


def evaluate(page: Page, flow: Locator, shots: Shots) -> None:
    flow.get_by_test_id("flow-next-evaluate").click()
    panel = page.get_by_test_id("evaluate-panel")
    expect(panel.locator("[data-testid=evaluate-model-choice]:checked")).to_have_count(2)
    expect(panel.get_by_test_id("evaluate-dataset")).to_have_value("data")
    panel.get_by_test_id("evaluate-run").click()
    expect(panel).to_have_attribute("data-status", "succeeded", timeout=RUN_MS)
    expect(panel.get_by_test_id("evaluate-result").get_by_test_id("evaluate-model")).to_have_count(2)
    shots.take(panel, "05-evaluated")


def add_budget(page: Page, flow: Locator, shots: Shots) -> None:
    flow.get_by_test_id("flow-next-budgets").click()
    expect(flow.get_by_test_id("flow-budget-template")).to_contain_text("[[budget]]")
    flow.get_by_test_id("flow-budgets-editor").click()
    editor = page.get_by_test_id("budgets-editor")
    expect(editor.get_by_test_id("budget-row")).to_have_count(1)
    expect(editor.get_by_test_id("budget-row")).to_have_attribute("data-model", "model.int8.mnn")
    shots.take(editor, "06-budget")
    editor.get_by_test_id("budgets-save").click()
    expect(editor.get_by_test_id("budgets-message")).to_have_text("Saved to mnnwb.toml.")


def test_first_day_from_template_to_device(context: BrowserContext, live_server, board, shots: Shots) -> None:
    page = create_from_template(context, live_server)
    page.get_by_test_id("action-flow").click()
    flow = page.get_by_test_id("flow-panel")
    expect(step(flow, "data")).to_have_attribute("data-state", "done")
    shots.take(flow, "01-flow-start")

    train(page, flow, shots)
    flow = back_to_flow(page)
    expect(step(flow, "train")).to_have_attribute("data-state", "done")
    run_tool(page, flow, "convert", shots, "03-convert", {})
    flow = back_to_flow(page)
    expect(step(flow, "convert")).to_have_attribute("data-state", "done")
    run_tool(page, flow, "quantize", shots, "04-quantize", {"format": "GRAY", "dataset": "data"})
    flow = back_to_flow(page)
    expect(step(flow, "quantize")).to_have_attribute("data-state", "done")
    evaluate(page, flow, shots)
    flow = back_to_flow(page)
    expect(step(flow, "evaluate")).to_have_attribute("data-state", "done")

    add_budget(page, flow, shots)
    commit_all(page, "untracked", "The models and their budget")  # the checks are kept per commit
    flow = back_to_flow(page)
    expect(flow.get_by_test_id("flow-next-budgets")).to_have_text("Run checks")
    flow.get_by_test_id("flow-next-budgets").click()
    expect(step(flow, "budgets")).to_have_attribute("data-state", "done", timeout=RUN_MS)

    expect(flow.get_by_test_id("flow-next-deploy")).to_have_text(f"Deploy to {board['name']}")
    flow.get_by_test_id("flow-next-deploy").click()
    flow = back_to_flow(page)
    expect(step(flow, "deploy")).to_have_attribute("data-state", "done", timeout=RUN_MS)

    expect(flow.get_by_test_id("flow-next-measure")).to_have_text(f"Benchmark on {board['name']}")
    flow.get_by_test_id("flow-next-measure").click()
    perf = page.get_by_test_id("perf-panel")
    expect(perf.get_by_test_id("bench-model")).to_have_value("model.int8.mnn")
    perf.get_by_test_id("bench-start").click()
    expect(perf.get_by_test_id("bench-stats")).to_be_visible(timeout=RUN_MS)
    shots.take(perf, "07-measured")
    for panel in ("Perf", "Training"):  # the whole flow in sight
        page.locator(".dv-tab", has_text=panel).locator(".dv-default-tab-action").click()
    flow = back_to_flow(page)
    for name in STEPS:
        expect(step(flow, name)).to_have_attribute("data-state", "done")
    shots.take(flow, "08-all-done")

    page.get_by_test_id("action-files").click()
    open_file(page, "train.py")
    editor_lines(page, "train.py").click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.type("\n# a wider head next time\n")
    expect(tab(page, "train.py")).to_have_attribute("data-state", "dirty")
    save(page)
    commit_all(page, "unstaged", "train: a note for next time")
    flow = back_to_flow(page)
    for name in ("train", *AFTER_TRAIN):
        expect(step(flow, name)).to_have_attribute("data-state", "stale")
    shots.take(flow, "09-stale")
