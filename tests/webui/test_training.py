"""The Training panel in a real browser: run the MLP template's default command as a local job,
watch it succeed, read its log in the terminal, see its loss chart drawn, and pull its model
into the project's file tree; a job in a fresh project venv whose log survives lost events,
and a long one stopped;
then a job on PAI-DLC (the emulator): settings, commit and push from the new-job dialog, the
cloud job's log and chart, its artifact pulled back."""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Route, WebSocketRoute, expect

from tests.fakes.git_remotes import bare_repo, git
from tests.fakes.paidlc import Emulator
from tests.waiting import wait_until
from tests.webui.conftest import ConsoleErrors
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser

BUCKET = "mnnwb-artifacts"


def _start_default_job(page: Page) -> None:
    page.get_by_test_id("action-training").click()
    panel = page.get_by_test_id("training-panel")
    expect(panel.get_by_test_id("jobs-empty")).to_be_visible()
    panel.get_by_test_id("job-new").click()
    dialog = page.get_by_test_id("new-job-dialog")
    expect(dialog.get_by_test_id("job-command")).to_have_value("python train.py")
    dialog.get_by_test_id("job-start").click()
    expect(dialog).to_have_count(0)


def _squeezed(text: str) -> str:
    # Compare text without whitespace: the terminal wraps long lines and pads rows with spaces.
    return "".join(text.split())


def _pull_and_reveal(page: Page, job_id: str, name: str) -> None:
    """Pull the job's artifacts, then follow the link to them into the file tree."""
    view = page.get_by_test_id("job-view")
    view.get_by_test_id("job-pull").click()
    done = view.get_by_test_id("pull-done")
    expect(done).to_have_text("✓ Pulled 1 file")
    expect(done).to_have_attribute("data-folder", f"artifacts/{job_id}")
    done.click()
    folder = page.locator(f"[data-testid=tree-item][data-path='artifacts/{job_id}']")
    expect(folder).to_have_class(re.compile(r"\bselected\b"))
    expect(page.locator(f"[data-testid=tree-item][data-path='artifacts/{job_id}/{name}']")).to_be_visible()


def test_run_template_job_and_watch_it(context: BrowserContext, live_server, tmp_path: Path) -> None:
    project = create_project(live_server, "mlp", template="mnn-native-mlp")
    page = open_project(context, live_server, project)
    _start_default_job(page)

    row = page.get_by_test_id("job-row")
    expect(row).to_have_count(1)
    expect(row).to_have_attribute("data-status", "succeeded", timeout=30_000)
    expect(row.get_by_test_id("job-duration")).to_have_text(re.compile(r"^\d+(\.\d)?s$"))
    view = page.get_by_test_id("job-view")
    expect(view.get_by_test_id("job-header")).to_have_attribute("data-status", "succeeded")
    expect(view.get_by_test_id("job-stop")).to_have_count(0)

    terminal = view.get_by_test_id("job-log")
    expect(terminal.locator(".xterm-rows")).to_contain_text("MNNWB_METRIC")
    expect(terminal.locator(".xterm-rows")).to_contain_text("saved")
    job_id = row.get_attribute("data-job-id")
    log_file = Path(live_server.settings.data_dir) / "jobs" / job_id / "output.log"
    # The terminal shows the end of the log: exactly the file's last lines, none lost or repeated.
    shown = _squeezed("".join(terminal.locator(".xterm-rows > div").all_inner_texts()))
    assert len(shown) > 200
    assert _squeezed(log_file.read_text()).endswith(shown)

    chart = view.locator("[data-testid=metric-chart][data-metric=loss]")
    expect(chart.locator(".u-legend")).to_contain_text("loss")
    canvas = chart.locator("canvas")
    expect(canvas).to_be_visible()
    box = canvas.bounding_box()
    assert box is not None and box["width"] > 100 and box["height"] > 50
    page.screenshot(path=tmp_path / "training.png")

    _pull_and_reveal(page, job_id, "model.mnn")
    # The pulled model offers the model tools.
    page.locator(f"[data-testid=tree-item][data-path='artifacts/{job_id}/model.mnn']").click(button="right")
    expect(page.get_by_test_id("context-menu").get_by_test_id("menu-tool-inspect")).to_be_visible()
    page.keyboard.press("Escape")


def test_run_a_job_again_with_its_environment_edited(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "again")
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-training").click()
    panel = page.get_by_test_id("training-panel")
    panel.get_by_test_id("job-new").click()
    dialog = page.get_by_test_id("new-job-dialog")
    command = "python -c \"import os; print('greeting', os.environ['GREETING'])\""
    dialog.get_by_test_id("job-command").fill(command)
    dialog.get_by_test_id("job-env").fill("GREETING=hello")
    dialog.get_by_test_id("job-start").click()
    rows = page.get_by_test_id("job-row")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-status", "succeeded", timeout=30_000)
    view = page.get_by_test_id("job-view")
    expect(view.get_by_test_id("job-log").locator(".xterm-rows")).to_contain_text("greeting hello")

    view.get_by_test_id("job-rerun").click()
    rerun = page.get_by_test_id("rerun-dialog")
    expect(rerun.get_by_test_id("rerun-env")).to_have_value("GREETING=hello")
    expect(rerun.get_by_test_id("rerun-command")).to_have_value(re.compile("^python -c"))
    rerun.get_by_test_id("rerun-env").fill("GREETING=again")
    rerun.get_by_test_id("rerun-start").click()
    expect(rows).to_have_count(2)
    first_id = rows.last.get_attribute("data-job-id")
    # the new job is the one shown, and it ran with the edited environment
    expect(view).not_to_have_attribute("data-job-id", first_id or "")
    expect(view.get_by_test_id("job-header")).to_have_attribute("data-status", "succeeded", timeout=30_000)
    expect(view.get_by_test_id("job-log").locator(".xterm-rows")).to_contain_text("greeting again")



def test_a_job_that_ended_before_its_submit_answered_shows_its_end(
    context: BrowserContext, live_server
) -> None:
    """A short job can end before the answer to its submit reaches the tab: the socket told of
    its end first, and the answer's older copy ("running") must not take it back."""
    project = create_project(live_server, "short")
    root = Path(project["path"])
    (root / "short.py").write_text(  # runs until the test lets it end
        "import os, time\nwhile not os.path.exists('go'):\n    time.sleep(0.02)\n")
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-training").click()
    held: list[Route] = []
    page.route(re.compile(r"/projects/[^/]+/jobs$"),
               lambda route: held.append(route) if route.request.method == "POST" else route.continue_())
    page.get_by_test_id("job-new").click()
    dialog = page.get_by_test_id("new-job-dialog")
    dialog.get_by_test_id("job-command").fill("python short.py")
    dialog.get_by_test_id("job-start").click()
    wait_until(lambda: page.evaluate("true") and held, what="the submit to be sent")
    answer = held[0].fetch()  # the server starts the job; its answer waits here
    assert answer.json()["status"] in ("queued", "running")
    (root / "go").touch()
    row = page.get_by_test_id("job-row")
    expect(row).to_have_attribute("data-status", "succeeded", timeout=30_000)
    held[0].fulfill(response=answer)
    expect(dialog).to_have_count(0)  # the answer was taken: the job is selected, the dialog closed
    # drawn with the answer taken (the job's view is the job, selected by it): still ended
    expect(page.get_by_test_id("job-view")).to_have_attribute("data-job-id", answer.json()["id"])
    assert row.get_attribute("data-status") == "succeeded"


COUNT_PY = """\
import sys, time
print(sys.prefix.endswith(".venv"), flush=True)
for i in range(12):
    print(f"line {i:02d}", flush=True)
    time.sleep(0.08)
"""


def _drop_every_other_log_batch(context: BrowserContext) -> list[int]:
    """Route the tab's websocket through a relay that loses every second ``job.log`` event.

    Appending ``-1`` to the returned list lets every later event through. The relay drops
    silently, so a batch lost just before a job falls silent would never show; the server itself
    tells a tab to resync when it drops events."""
    seen: list[int] = []

    def relay(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            if isinstance(message, str) and '"job.log"' in message and -1 not in seen:
                seen.append(len(seen))
                if len(seen) % 2 == 0:
                    return
            ws.send(message)

        server.on_message(from_server)

    context.route_web_socket(re.compile(r"/ws(\?|$)"), relay)
    return seen


def _create_project_venv(page: Page) -> None:
    page.get_by_test_id("interpreter-open").click()
    dialog = page.get_by_test_id("interpreter-dialog")
    expect(dialog.get_by_test_id("interpreter-current")).to_contain_text("the server's own Python")
    dialog.get_by_test_id("venv-create").click()
    expect(dialog.get_by_test_id("venv-log")).to_contain_text("creating .venv")
    expect(dialog.get_by_test_id("interpreter-current")).to_contain_text(".venv/bin/python")
    expect(dialog.get_by_test_id("interpreter-current")).to_contain_text("the project venv")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("interpreter-open")).to_have_text("Python: .venv")


def test_job_in_project_venv_survives_lost_log_batches(context: BrowserContext, live_server) -> None:
    batches = _drop_every_other_log_batch(context)
    project = create_project(live_server, "counter")
    (Path(project["path"]) / "count.py").write_text(COUNT_PY)
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-training").click()
    _create_project_venv(page)
    page.get_by_test_id("job-new").click()
    page.get_by_test_id("job-command").fill("python count.py")
    page.get_by_test_id("job-start").click()

    expect(page.get_by_test_id("job-row")).to_have_attribute("data-status", "succeeded", timeout=30_000)
    rows = page.locator("[data-testid=job-log] .xterm-rows > div")
    expect(rows.nth(12)).to_have_text("line 11")
    shown = [text.strip() for text in rows.all_inner_texts() if text.strip()]
    assert shown == ["True"] + [f"line {i:02d}" for i in range(12)]
    assert len(batches) >= 2, "no log batch was dropped: the gap path did not run"
    batches.append(-1)  # the long job prints one line and falls silent: nothing would reveal its loss
    _start_and_stop_a_long_job(page)


def _start_and_stop_a_long_job(page: Page) -> None:
    page.get_by_test_id("job-new").click()
    long_job = "python -c \"import time; print('waiting', flush=True); time.sleep(60)\""
    page.get_by_test_id("job-command").fill(long_job)
    page.get_by_test_id("job-start").click()
    row = page.get_by_test_id("job-row").first
    expect(row).to_have_attribute("data-status", "running")
    view = page.get_by_test_id("job-view")
    expect(view.get_by_test_id("job-log").locator(".xterm-rows")).to_contain_text("waiting")
    duration = row.get_by_test_id("job-duration")
    expect(duration).not_to_have_text(duration.inner_text())  # it counts up while the job runs
    view.get_by_test_id("job-stop").click()
    expect(row).to_have_attribute("data-status", "stopped")
    expect(view.get_by_test_id("job-stop")).to_have_count(0)


TRAIN_PY = """\
import json, os
for step in range(1, 4):
    print(f"step {step}")
    print("MNNWB_METRIC " + json.dumps({"step": step, "loss": 1 / step}))
with open(os.path.join(os.environ["MNNWB_OUTPUT_DIR"], "model.bin"), "wb") as f:
    f.write(os.urandom(4096))
print("cloud job done", flush=True)
"""


@pytest.fixture
def emulator(monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    # The OpenAPI SDK ignores NO_PROXY: a proxy would swallow the calls meant for 127.0.0.1.
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    with Emulator(buckets=(BUCKET,), step_delay=0.02) as emu:
        yield emu


def _cloud_project(live_server, tmp_path: Path) -> dict:
    """A Git project with one commit, an empty bare ``origin``, and an uncommitted train.py."""
    project = create_project(live_server, "cloud")
    folder = Path(project["path"])
    git("init", "-q", "-b", "main", cwd=folder)
    git("config", "user.name", "Ada Lovelace", cwd=folder)
    git("config", "user.email", "ada@example.com", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "Start", cwd=folder)
    git("remote", "add", "origin", bare_repo(tmp_path / "remote.git").as_uri(), cwd=folder)
    (folder / "train.py").write_text(TRAIN_PY)
    return project


def _save_pai_settings(page: Page, emulator: Emulator) -> None:
    page.get_by_test_id("pai-settings-open").click()
    dialog = page.get_by_test_id("pai-settings-dialog")
    values = {"workspace_id": "ws-test", "oss_bucket": BUCKET, "oss_prefix": "wb"}
    for name, value in values.items():
        dialog.get_by_test_id(f"pai-{name}").fill(value)
    dialog.locator("summary").click()
    dialog.get_by_test_id("pai-endpoint").fill(emulator.endpoint)
    dialog.get_by_test_id("pai-workspace_endpoint").fill(emulator.endpoint)
    dialog.get_by_test_id("pai-oss_endpoint").fill(emulator.oss_endpoint)
    dialog.get_by_test_id("pai-protocol").select_option("http")
    dialog.get_by_test_id("pai-oss_path_style").check()
    dialog.get_by_test_id("pai-cred-key").check()
    dialog.get_by_test_id("pai-key-id").fill(emulator.access_key_id)
    dialog.get_by_test_id("pai-secret").fill(emulator.access_key_secret)
    dialog.get_by_test_id("pai-save").click()
    expect(dialog).to_have_count(0)
    # Reopened, the secret shows only as stored, and the machine types now come from the cloud.
    page.get_by_test_id("pai-settings-open").click()
    expect(dialog.get_by_test_id("pai-secret-stored")).to_be_visible()
    expect(dialog.get_by_test_id("pai-secret")).to_have_value("")
    expect(dialog.get_by_test_id("ecs-spec").locator("option[value='ecs.c6.large']")).to_have_count(1)
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)


def _submit_cloud_job(page: Page) -> None:
    page.get_by_test_id("job-new").click()
    dialog = page.get_by_test_id("new-job-dialog")
    dialog.get_by_test_id("job-backend-pai-dlc").click()
    dialog.get_by_test_id("ecs-spec").select_option("ecs.c6.large")
    dialog.get_by_test_id("job-command").fill("python3 train.py")
    dialog.get_by_test_id("job-start").click()
    step = dialog.get_by_test_id("push-step")
    expect(step).to_contain_text("train.py")
    step.get_by_test_id("push-message").fill("Add the training script")
    step.get_by_test_id("push-confirm").click()
    expect(dialog).to_have_count(0)


def test_cloud_job_on_pai_dlc(
    context: BrowserContext, live_server, emulator: Emulator, tmp_path: Path, console_errors: ConsoleErrors
) -> None:
    console_errors.allow(r"409 .*/jobs\)")  # the first start asks to commit and push
    project = _cloud_project(live_server, tmp_path)
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-training").click()
    _save_pai_settings(page, emulator)
    _submit_cloud_job(page)

    row = page.get_by_test_id("job-row")
    expect(row).to_contain_text("PAI-DLC")
    expect(row).to_have_attribute("data-status", "succeeded", timeout=30_000)
    assert git("log", "-1", "--format=%s", cwd=project["path"]).strip() == "Add the training script"
    view = page.get_by_test_id("job-view")
    expect(view.get_by_test_id("job-log").locator(".xterm-rows")).to_contain_text("cloud job done")
    expect(view.locator("[data-testid=metric-chart][data-metric=loss] .u-legend")).to_contain_text("loss")

    _pull_and_reveal(page, row.get_attribute("data-job-id"), "model.bin")
    page.screenshot(path=tmp_path / "cloud.png")
