"""A person runs a pipeline of three models on a photograph from the file tree and sees the
boxes drawn on it, what each was read as, and every stage's time; runs it on a paired device;
stops a run on a device and sees what it did; compares two configurations and sees the first
stage that diverges."""

import contextlib
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Locator, Route, expect

from device_bridge.runtime import pipeline
from tests.device_bridge.test_pipeline import COINS
from tests.fakes.photos import photo
from tests.waiting import wait_until
from tests.webui.agents import paired_agent
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser
RUN_TIMEOUT_MS = 60_000
MANY = 150  # inputs: the run lasts until it is stopped


def test_run_a_pipeline_on_a_photo_and_see_boxes_and_text(
    context: BrowserContext, live_server, coins_pipeline: Path
) -> None:
    project = create_project(live_server, "ocr-chain")
    root = Path(project["path"])
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, root / path.name)
    shutil.copy(coins_pipeline, root / "pipeline.toml")
    shutil.copy(photo(COINS), root / COINS)
    expected = pipeline.Runner(pipeline.load(root / "pipeline.toml")).run(root / COINS)
    boxes = len(expected["stages"][2]["items"][0]["boxes"])
    page = open_project(context, live_server, project)

    page.locator("[data-testid=tree-item][data-path='pipeline.toml']").click(button="right")
    page.get_by_test_id("menu-run-pipeline").click()
    panel = page.get_by_test_id("pipeline-panel")
    expect(panel.get_by_test_id("pipeline-input-path")).to_have_value(COINS)
    panel.get_by_test_id("pipeline-run").click()
    expect(panel).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    result = panel.get_by_test_id("pipeline-result")
    expect(result.get_by_test_id("pipeline-box")).to_have_count(boxes)
    expect(result.get_by_test_id("pipeline-image")).to_have_js_property("naturalWidth", 384)
    texts = [item["outputs"]["logits"]["text"] for item in expected["stages"][-1]["items"]]
    expect(result.get_by_test_id("pipeline-readings")).to_contain_text(next(t for t in texts if t))
    stages = result.get_by_test_id("pipeline-stage")
    expect(stages).to_have_count(len(expected["stages"]))
    expect(result.locator("[data-testid=pipeline-stage][data-stage=read] td").nth(2)).to_have_text(str(boxes))
    expect(result.get_by_test_id("pipeline-timeline").locator(".pipeline-span")).to_have_count(
        len(expected["timeline"]))
    # Each model stage's session memory in its row; a step measures none.
    cell = "[data-testid=pipeline-stage][data-stage={}] [data-testid=pipeline-stage-memory]"
    read_mb = result.locator(cell.format("read"))
    expect(read_mb).to_have_text(re.compile(r"^\d+\.\d+$"))
    assert float(read_mb.inner_text()) > 0
    boxes_mb = result.locator(cell.format("boxes"))
    expect(boxes_mb).to_have_text("–")
    expect(result.get_by_test_id("pipeline-memory")).to_contain_text("MB in sessions")


def _chain(live_server, coins_pipeline: Path, name: str) -> dict:
    project = create_project(live_server, name)
    root = Path(project["path"])
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, root / path.name)
    shutil.copy(coins_pipeline, root / "pipeline.toml")
    shutil.copy(photo(COINS), root / COINS)
    return project


def test_compare_two_configurations_and_see_the_first_stage_that_diverges(
    context: BrowserContext, live_server, coins_pipeline: Path
) -> None:
    project = _chain(live_server, coins_pipeline, "compare-chain")
    root = Path(project["path"])
    # B's orientation classifier is the same model with its labels the other way round.
    shutil.copy(root / "orientation.mnn", root / "orientation-flipped.mnn")
    spec = (root / "orientation.mnn.model.toml").read_text()
    assert spec.count('"0", "180"') == 1, spec
    (root / "orientation-flipped.mnn.model.toml").write_text(spec.replace('"0", "180"', '"180", "0"'))
    page = open_project(context, live_server, project)

    page.locator("[data-testid=tree-item][data-path='pipeline.toml']").click(button="right")
    page.get_by_test_id("menu-run-pipeline").click()
    panel = page.get_by_test_id("pipeline-panel")
    expect(panel.get_by_test_id("pipeline-device").locator("option").first).to_have_text("This machine")
    expect(panel.get_by_test_id("pipeline-input-path")).to_have_value(COINS)
    panel.get_by_test_id("pipeline-compare-open").click()
    panel.get_by_test_id("compare-b-variants").fill("orientation.model=orientation-flipped.mnn")
    panel.get_by_test_id("compare-run").click()
    expect(panel).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    compared = panel.get_by_test_id("compare-result")
    expect(compared.get_by_test_id("compare-first")).to_contain_text(
        f"First divergence: orientation on {COINS}")
    rows = compared.get_by_test_id("compare-stage")
    expect(rows).to_have_count(7)
    first = compared.locator("[data-testid=compare-stage][data-first=true]")
    expect(first).to_have_attribute("data-stage", "orientation")
    for stage in ("image", "detect", "boxes", "crops"):
        expect(compared.locator(f"[data-testid=compare-stage][data-stage={stage}]")).to_have_attribute(
            "data-diverged", "false")
    expect(compared.locator("[data-testid=compare-stage][data-stage=upright]")).to_have_attribute(
        "data-diverged", "true")
    # Both runs side by side, each with its photo, boxes and stage times.
    side = compared.get_by_test_id("compare-input")
    expect(side.get_by_test_id("compare-side-a").get_by_test_id("pipeline-stage")).to_have_count(7)
    expect(side.get_by_test_id("compare-side-b").get_by_test_id("pipeline-stage")).to_have_count(7)
    expect(side.get_by_test_id("compare-side-b").locator("tr.pipeline-diverged[data-stage=orientation]")).to_have_count(1)
    expect(side.get_by_test_id("compare-side-a").locator("tr.pipeline-diverged[data-stage=detect]")).to_have_count(0)


def test_run_a_pipeline_on_a_paired_device_from_the_panel(
    context: BrowserContext, live_server, coins_pipeline: Path, tmp_path: Path
) -> None:
    project = _chain(live_server, coins_pipeline, "device-chain")
    root = Path(project["path"])
    expected = pipeline.Runner(pipeline.load(root / "pipeline.toml")).run(root / COINS)
    with paired_agent(live_server, tmp_path / "agent", "pixel") as (_device, agent):
        page = open_project(context, live_server, project)
        page.locator("[data-testid=tree-item][data-path='pipeline.toml']").click(button="right")
        page.get_by_test_id("menu-run-pipeline").click()
        panel = page.get_by_test_id("pipeline-panel")
        picker = panel.get_by_test_id("pipeline-device")
        expect(picker.locator("option", has_text="● pixel")).to_have_count(1, timeout=RUN_TIMEOUT_MS)
        picker.select_option(label="● pixel")
        panel.get_by_test_id("pipeline-run").click()
        expect(panel).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
        result = panel.get_by_test_id("pipeline-result")
        expect(result.get_by_test_id("pipeline-device-name")).to_have_text("On pixel")
        boxes = len(expected["stages"][2]["items"][0]["boxes"])
        expect(result.get_by_test_id("pipeline-box")).to_have_count(boxes)
        texts = [item["outputs"]["logits"]["text"] for item in expected["stages"][-1]["items"]]
        expect(result.get_by_test_id("pipeline-readings")).to_have_text(
            "Read: " + (" · ".join(t for t in texts if t) or "(nothing)"))


def test_tilted_quads_are_drawn_as_they_were_found(
    context: BrowserContext, live_server, coins_pipeline: Path
) -> None:
    project = _chain(live_server, coins_pipeline, "quads-chain")
    root = Path(project["path"])
    text = (root / "pipeline.toml").read_text()
    assert text.count('label = "coin"\n') == 1
    (root / "pipeline.toml").write_text(text.replace('label = "coin"\n', 'label = "coin"\nquads = true\n'))
    expected = pipeline.Runner(pipeline.load(root / "pipeline.toml")).run(root / COINS)
    quads = [row["quad"] for row in expected["stages"][2]["items"][0]["boxes"]]
    page = open_project(context, live_server, project)
    page.locator("[data-testid=tree-item][data-path='pipeline.toml']").click(button="right")
    page.get_by_test_id("menu-run-pipeline").click()
    panel = page.get_by_test_id("pipeline-panel")
    panel.get_by_test_id("pipeline-run").click()
    expect(panel).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    drawn = panel.get_by_test_id("pipeline-quad")
    expect(drawn).to_have_count(len(quads))
    def js(value: float) -> str:  # how the page writes a number into the attribute
        return str(int(value)) if value == int(value) else repr(value)

    first = " ".join(f"{js(x)},{js(y)}" for x, y in quads[0])
    expect(drawn.first).to_have_attribute("points", first)


def _ended(panel: Locator) -> bool:
    """The run is over (or was refused) as far as the panel shows."""
    over = panel.get_attribute("data-status") in ("succeeded", "failed", "cancelled")
    return over or panel.get_by_test_id("pipeline-error").count() > 0


def test_stop_a_pipeline_on_a_device_and_see_what_it_did(
    context: BrowserContext, live_server, coins_pipeline: Path, tmp_path: Path
) -> None:
    project = _chain(live_server, coins_pipeline, "device-stop")
    many = Path(project["path"]) / "many"
    many.mkdir()
    for index in range(MANY):
        shutil.copy(photo(COINS), many / f"{index:03}.png")
    with paired_agent(live_server, tmp_path / "agent", "pixel") as (_device, agent):
        page = open_project(context, live_server, project)
        page.locator("[data-testid=tree-item][data-path='pipeline.toml']").click(button="right")
        page.get_by_test_id("menu-run-pipeline").click()
        panel = page.get_by_test_id("pipeline-panel")
        picker = panel.get_by_test_id("pipeline-device")
        expect(picker.locator("option", has_text="● pixel")).to_have_count(1, timeout=RUN_TIMEOUT_MS)
        picker.select_option(label="● pixel")
        panel.get_by_test_id("pipeline-input-path").fill("many")
        panel.get_by_test_id("pipeline-run").click()
        # The agent logs each input it starts: the second started, the first is done. A run
        # that ended or never started ends the wait too, and the failure says what was shown.
        with contextlib.suppress(AssertionError):  # a timeout is said below, with the panel
            wait_until(lambda: f"input 2 of {MANY}" in agent.log() or _ended(panel), timeout=60,
                       what="the first input to be done")
        assert f"input 2 of {MANY}" in agent.log(), (
            f"the panel: {panel.inner_text()!r}, status {panel.get_attribute('data-status')!r}")
        panel.get_by_test_id("pipeline-stop").click()
        expect(panel).to_have_attribute("data-status", "cancelled", timeout=RUN_TIMEOUT_MS)
        expect(panel.get_by_test_id("pipeline-stop")).to_have_count(0)
        said = re.search(rf"stopped after (\d+) of {MANY} inputs", agent.log())
        assert said is not None, agent.log()
        done = int(said.group(1))
        assert 1 <= done < MANY
        expect(panel.get_by_test_id("pipeline-cancelled")).to_have_text(
            f"Cancelled after {done} of {MANY} inputs")
        result = panel.get_by_test_id("pipeline-result")
        expect(result.get_by_test_id("pipeline-device-name")).to_have_text("On pixel")
        expect(result.get_by_test_id("pipeline-input")).to_have_count(done)
        expect(result.get_by_test_id("pipeline-input").first).to_have_attribute("data-input", "many/000.png")
        # The device takes the next run at once.
        panel.get_by_test_id("pipeline-input-path").fill(COINS)
        panel.get_by_test_id("pipeline-run").click()
        expect(panel).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
        expect(panel.get_by_test_id("pipeline-result").get_by_test_id("pipeline-input")).to_have_count(1)


def test_a_default_input_offered_while_typing_is_replaced_by_the_keys(
    context: BrowserContext, live_server, coins_pipeline: Path
) -> None:
    """The panel offers the project's first photo once its file list has loaded; offered to a
    person already in the empty field, it is selected and their first key replaces it (the caret
    after it had the keys appended)."""
    project = _chain(live_server, coins_pipeline, "late-default")
    page = open_project(context, live_server, project)
    shutil.copy(photo(COINS), Path(project["path"]) / "late.png")  # the file list is read again
    expect(page.locator("[data-testid=tree-item][data-path='late.png']")).to_be_visible()
    held: list[Route] = []
    page.route(re.compile(r"/files\?path="),  # the folder listings: held until the field is in use
               lambda route: route.continue_() if released else held.append(route))
    released = False
    page.locator("[data-testid=tree-item][data-path='pipeline.toml']").click(button="right")
    page.get_by_test_id("menu-run-pipeline").click()
    field = page.get_by_test_id("pipeline-panel").get_by_test_id("pipeline-input-path")
    field.click()
    wait_until(lambda: page.evaluate("true") and held, what="the file list to be asked for")
    released = True
    for route in held:
        route.continue_()
    expect(page.locator("#pipeline-files option[value='late.png']")).to_be_attached()
    expect(field).to_have_value(COINS)
    field.press_sequentially("many")
    expect(field).to_have_value("many")
    expect(field).to_be_focused()
