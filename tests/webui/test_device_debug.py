"""Devices and Run and Debug in a real browser against a real device agent process: set a
breakpoint by clicking the editor's gutter, debug on the device, stop on that line, read a local in
the Variables view, a watch and an evaluation, continue to the end and read the program's last
output in the device console; pair, rename and revoke a device from the Devices panel; live perf
charts, an on-device benchmark on a backend the agent reports and the CSV export; tensor
watchpoints; typing into a program's
stdin."""

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.conftest import LiveServer
from tests.device_bridge.harness import AgentProcess
from tests.device_bridge.test_agent_mnn import DYNAMIC_MODEL, SPEC
from tests.fakes.photos import CAT, photo
from tests.waiting import wait_until
from tests.webui.agents import paired_agent
from tests.webui.workbench import create_project, editor_lines, open_file, open_project

pytestmark = pytest.mark.browser

SCRIPT = """total = 0
for i in range(1, 5):
    total = total + i * 10
print("done", total)
"""
BREAK_LINE = 4


@pytest.fixture
def device(live_server: LiveServer, tmp_path: Path) -> Iterator[dict]:
    """A real agent process, paired with the server and online."""
    with paired_agent(live_server, tmp_path / "agent") as (found, _agent):
        yield found


def click_gutter(page: Page, path: str, line: int) -> None:
    """Click the glyph margin (left of the line numbers) on ``line``."""
    editor = page.locator(f"[data-testid=editor][data-path='{path}']")
    # The editor is created again once its editing features have loaded: wait for that one.
    expect(editor).to_have_attribute("data-features", "true")
    number = editor.locator(".line-numbers", has_text=re.compile(rf"^\s*{line}\s*$"))
    expect(number).to_be_visible()
    row = number.bounding_box()
    margin = editor.locator(".margin").bounding_box()
    assert row and margin
    page.mouse.click(margin["x"] + 8, row["y"] + row["height"] / 2)


def test_breakpoint_in_gutter_stops_on_device(
    context: BrowserContext, live_server: LiveServer, device: dict, tmp_path: Path
) -> None:
    project = create_project(live_server, "blink")
    (Path(project["path"]) / "main.py").write_text(SCRIPT)
    page = open_project(context, live_server, project)
    open_file(page, "main.py")

    click_gutter(page, "main.py", BREAK_LINE)
    expect(page.locator("[data-testid=editor][data-path='main.py'] .bp-glyph")).to_have_count(1)

    page.get_by_test_id("action-run-debug").click()
    panel = page.get_by_test_id("run-panel")
    breakpoint_row = panel.get_by_test_id("breakpoint")
    expect(breakpoint_row).to_have_attribute("data-line", str(BREAK_LINE))
    panel.get_by_test_id("device-picker").select_option(device["id"])
    panel.get_by_test_id("debug-start").click()

    current = page.locator("[data-testid=editor][data-path='main.py'] .debug-current-line")
    expect(current).to_have_count(1, timeout=30_000)
    expect(panel.get_by_test_id("stop-reason")).to_contain_text("breakpoint")
    line_top = editor_lines(page, "main.py").locator(".view-line").nth(BREAK_LINE - 1).bounding_box()
    highlight = current.bounding_box()
    assert line_top and highlight and abs(highlight["y"] - line_top["y"]) < 2
    total = panel.locator("[data-testid=variable][data-name=total]")
    expect(total.get_by_test_id("variable-value")).to_have_text("100")
    panel.get_by_test_id("watch-input").fill("total * 2")
    panel.get_by_test_id("watch-input").press("Enter")
    watch = panel.locator("[data-testid=watch][data-expression='total * 2']")
    expect(watch.get_by_test_id("watch-value")).to_have_text("200")
    page.screenshot(path=tmp_path / "stopped.png")
    panel.get_by_test_id("open-repl").click()
    page.get_by_test_id("repl-input").fill("i + 1")
    page.get_by_test_id("repl-input").press("Enter")
    expect(page.get_by_test_id("repl-output")).to_have_text("5")

    panel.get_by_test_id("debug-continue").click()
    panel.get_by_test_id("open-console").click()
    console = page.get_by_test_id("device-console")
    expect(console).to_contain_text("done 100")
    expect(console).to_contain_text("Process exited with code 0.")
    expect(current).to_have_count(0)
    expect(panel.get_by_test_id("run-state")).to_have_attribute("data-state", "idle")
    page.screenshot(path=tmp_path / "ended.png")

    # Saved with the project, and moved down with a line typed above it.
    wait_until(
        lambda: saved_breakpoints(live_server, project) == {"main.py": [BREAK_LINE]},
        10,
        "the breakpoint to be saved",
    )
    editor_lines(page, "main.py").click()
    page.keyboard.press("ControlOrMeta+Home")
    page.keyboard.press("Enter")
    expect(breakpoint_row).to_have_attribute("data-line", str(BREAK_LINE + 1))
    wait_until(
        lambda: saved_breakpoints(live_server, project) == {"main.py": [BREAK_LINE + 1]},
        10,
        "the moved breakpoint to be saved",
    )


def saved_breakpoints(live_server: LiveServer, project: dict) -> dict | None:
    url = f"{live_server.url}/api/projects/{project['id']}/ui-state"
    state = httpx.get(url, headers=live_server.auth).json()["state"]
    return state.get("breakpoints", {}).get("lines")


def test_pair_rename_and_revoke_a_device(
    context: BrowserContext, live_server: LiveServer, tmp_path: Path
) -> None:
    project = create_project(live_server, "devices")
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-devices").click()
    panel = page.get_by_test_id("devices-panel")
    panel.get_by_test_id("pair-device").click()
    dialog = page.get_by_test_id("pair-dialog")
    dialog.get_by_test_id("pair-name").fill("pi")
    dialog.get_by_test_id("pair-create").click()
    expect(dialog.get_by_test_id("pair-expiry")).to_contain_text("expires at")
    page.screenshot(path=tmp_path / "pair.png")
    agent = AgentProcess.from_shell(dialog.get_by_test_id("pair-command").inner_text(), tmp_path / "agent")
    try:
        expect(dialog.get_by_test_id("pair-status")).to_contain_text("pi is connected", timeout=20_000)
        dialog.get_by_test_id("pair-done").click()
        row = panel.get_by_test_id("device-row")
        expect(row).to_have_attribute("data-online", "true")
        expect(row).to_contain_text("Python 3.")
        page.screenshot(path=tmp_path / "devices.png")

        row.hover()
        row.get_by_test_id("device-rename").click()
        page.get_by_test_id("prompt-input").fill("bench board")
        page.get_by_test_id("prompt-ok").click()
        expect(row.get_by_test_id("device-name")).to_have_text("bench board")

        row.get_by_test_id("device-revoke").click()
        page.get_by_test_id("confirm-ok").click()
        expect(row).to_have_count(0)
        wait_until(lambda: agent.proc.poll() is not None, 20, "the revoked agent to stop")
    finally:
        agent.kill()


PERF_SCRIPT = """import json
import time

for step in range(25):
    started = time.perf_counter()
    sum(i * i for i in range(30000))
    latency = (time.perf_counter() - started) * 1000
    print("MNNWB_METRIC " + json.dumps({"step": step, "latency_ms": round(latency, 3)}), flush=True)
    time.sleep(0.06)
"""
BUILD_MODEL = """
import sys
import MNN
F = MNN.expr
x = F.placeholder([1, 3, 16, 16], F.NCHW)
x.name = "input"
y = F.sigmoid(F.relu(x) * F.scalar(2.0))
y.name = "output"
F.save([y], sys.argv[1])
"""


def perf_panel_on(page: Page, device: dict):
    """The Perf panel, with ``device`` picked in Run and Debug."""
    page.get_by_test_id("action-run-debug").click()
    page.get_by_test_id("run-panel").get_by_test_id("device-picker").select_option(device["id"])
    page.get_by_test_id("action-perf").click()
    return page.get_by_test_id("perf-panel")


def build_tiny_model(path: Path) -> None:
    command = [sys.executable, "-c", BUILD_MODEL, str(path)]
    subprocess.run(command, check=True, capture_output=True, timeout=60)


def test_perf_charts_benchmark_and_csv(
    context: BrowserContext, live_server: LiveServer, device: dict, tmp_path: Path
) -> None:
    project = create_project(live_server, "perf")
    root = Path(project["path"])
    (root / "app.py").write_text(PERF_SCRIPT)
    build_tiny_model(root / "tiny.mnn")
    page = open_project(context, live_server, project)
    open_file(page, "app.py")
    page.get_by_test_id("action-run-debug").click()
    run_panel = page.get_by_test_id("run-panel")
    run_panel.get_by_test_id("device-picker").select_option(device["id"])
    run_panel.get_by_test_id("run-start").click()
    page.get_by_test_id("action-perf").click()
    perf = page.get_by_test_id("perf-panel")
    expect(perf.get_by_test_id("perf-latest")).to_contain_text("RSS", timeout=30_000)
    expect(run_panel.get_by_test_id("run-state")).to_have_attribute("data-state", "idle", timeout=30_000)
    latency = perf.locator("[data-testid=perf-chart][data-metric=latency]")
    expect(latency).to_have_attribute("data-points", "25")
    points = perf.locator("[data-testid=perf-chart][data-metric=cpu]").get_attribute("data-points")
    assert int(points or 0) >= 5

    expect(perf.get_by_test_id("bench-model")).to_have_value("tiny.mnn")
    # The backends offered are those the agent reported in its hello; the others say why not.
    reported = device["info"]["backends"]
    usable = [b["name"] for b in reported if b["available"]]
    assert usable[0] == "CPU"
    assert perf.get_by_test_id("bench-backend").locator("option").all_inner_texts() == usable
    absent = [b for b in reported if not b["available"]]
    if absent:
        first = perf.get_by_test_id("bench-backend-absent").locator(f"li[data-backend={absent[0]['name']}]")
        expect(first).to_have_text(f"{absent[0]['name']} — {absent[0]['reason']}", use_inner_text=False)
    perf.get_by_test_id("bench-backend").select_option("CPU")
    perf.get_by_test_id("bench-start").click()
    expect(perf.get_by_test_id("bench-stats")).to_contain_text("median", timeout=60_000)
    expect(perf.get_by_test_id("bench-ran-on")).to_have_text("on CPU, 4 threads")
    expect(perf.locator(".op-row").first).to_be_visible()
    page.screenshot(path=tmp_path / "perf.png")

    with page.expect_download() as download:
        perf.get_by_test_id("perf-export").click()
    rows = Path(download.value.path()).read_text().splitlines()
    assert rows[0] == "t,cpu_percent,rss_mb,threads"
    assert len(rows) > 5 and all(len(row.split(",")) == 4 for row in rows[1:])


def test_benchmark_of_a_dynamic_model_asks_its_shape_and_takes_a_photo(
    context: BrowserContext, live_server: LiveServer, device: dict, tmp_path: Path
) -> None:
    """A detector with input ``[1, 3, ?, ?]``: the device refuses to guess the open dims, the
    person gives them, then feeds a photo the spec preprocesses; the result says what ran."""
    project = create_project(live_server, "perf-dynamic")
    root = Path(project["path"])
    subprocess.run([sys.executable, "-c", DYNAMIC_MODEL, str(root / "det.mnn")], check=True,
                   capture_output=True, timeout=60)
    (root / "det.mnn.model.toml").write_text(SPEC.format(default=""))
    (root / "cat.png").write_bytes(photo(CAT).read_bytes())
    perf = perf_panel_on(open_project(context, live_server, project), device)
    expect(perf.get_by_test_id("bench-model")).to_have_value("det.mnn")
    shape = perf.get_by_test_id("bench-inputs-shape-image")
    expect(shape).to_have_attribute("placeholder", re.compile("^shape, e.g."))
    perf.get_by_test_id("bench-start").click()
    error = perf.get_by_test_id("bench-error")
    expect(error).to_have_attribute("data-code", "input_shape_required", timeout=60_000)
    expect(error).to_contain_text("input 'image' has a dynamic dim 2 (declared [1, 3, ?, ?])")
    expect(perf.locator(".device-input.refused[data-input=image]")).to_be_visible()

    shape.fill("1,3,64,80")
    perf.get_by_test_id("bench-start").click()
    ran_with = perf.get_by_test_id("bench-ran-with")
    expect(ran_with).to_have_text("image 1×3×64×80 (random values)", timeout=60_000)
    perf.get_by_test_id("bench-inputs-file-image").fill("cat.png")
    perf.get_by_test_id("bench-start").click()
    expect(ran_with).to_have_text("image 1×3×64×80 from cat.png", timeout=60_000)
    expect(perf.get_by_test_id("bench-stats")).to_contain_text("median")


def test_tensor_watchpoints_stop_after_ops_and_continue(
    context: BrowserContext, live_server: LiveServer, device: dict, tmp_path: Path
) -> None:
    project = create_project(live_server, "watch")
    root = Path(project["path"])
    build_tiny_model(root / "tiny.mnn")
    page = open_project(context, live_server, project)
    watch = perf_panel_on(page, device).get_by_test_id("watch-section")
    expect(watch.get_by_test_id("watch-model")).to_have_value("tiny.mnn")

    # Every op: the model waits on the device after each output until continued.
    watch.get_by_test_id("watch-start").click()
    hit = watch.get_by_test_id("watch-hit")
    expect(hit.get_by_test_id("watch-shape")).to_have_text("1×3×16×16", timeout=60_000)
    expect(hit.get_by_test_id("watch-stats")).to_contain_text("mean")
    expect(hit.get_by_test_id("watch-histogram")).to_have_attribute("data-bins", "32")
    page.screenshot(path=tmp_path / "watch.png")
    while watch.get_attribute("data-state") != "idle":
        hits = watch.get_attribute("data-hits")
        watch.get_by_test_id("watch-continue").click()
        wait_until(lambda: watch.get_attribute("data-hits") != hits  # noqa: B023
                   or watch.get_attribute("data-state") == "idle", what="the next hit or the end")
    seen = int(watch.get_attribute("data-hits") or 0)
    assert seen >= 3
    expect(watch.get_by_test_id("watch-done")).to_have_text(f"Finished: {seen} tensors watched.")
    expect(watch.get_by_test_id("watch-history").locator(".watch-history-row")).to_have_count(seen - 1)

    # One named op only; the sigmoid of ReLU(x) * 2 for x in [0, 1) lies in [0.5, 0.881).
    watch.get_by_test_id("watch-ops").fill("output")
    watch.get_by_test_id("watch-start").click()
    expect(hit).to_have_attribute("data-op", "output", timeout=60_000)
    stats = hit.get_by_test_id("watch-stats").inner_text()
    low, high = (float(re.search(rf"{name} (\S+)", stats).group(1)) for name in ("min", "max"))  # type: ignore[union-attr]
    assert 0.5 <= low <= high < 0.881
    watch.get_by_test_id("watch-continue").click()
    expect(watch.get_by_test_id("watch-done")).to_have_text("Finished: 1 tensor watched.", timeout=30_000)

    # Stop at the first hit: the rest of the model is not watched.
    watch.get_by_test_id("watch-ops").fill("")
    watch.get_by_test_id("watch-start").click()
    expect(watch).to_have_attribute("data-state", "paused", timeout=60_000)
    watch.get_by_test_id("watch-stop").click()
    expect(watch.get_by_test_id("watch-done")).to_have_text("Finished: 1 tensor watched.", timeout=30_000)


def test_console_sends_typed_lines_to_stdin(
    context: BrowserContext, live_server: LiveServer, device: dict
) -> None:
    project = create_project(live_server, "greet")
    (Path(project["path"]) / "greet.py").write_text('name = input("name? ")\nprint("hello", name)\n')
    page = open_project(context, live_server, project)
    open_file(page, "greet.py")
    page.get_by_test_id("action-run-debug").click()
    panel = page.get_by_test_id("run-panel")
    panel.get_by_test_id("device-picker").select_option(device["id"])
    panel.get_by_test_id("run-start").click()
    console = page.get_by_test_id("device-console")
    expect(console).to_contain_text("name?", timeout=30_000)
    console.locator(".xterm").click()
    expect(console.locator(".xterm-helper-textarea")).to_be_focused()
    page.keyboard.type("Ada")
    page.keyboard.press("Enter")
    expect(console).to_contain_text("hello Ada")
    expect(console).to_contain_text("Process exited with code 0.")
