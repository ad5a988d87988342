"""A viewer in team mode is offered no action that would change the project: Source Control,
Training, Search's replace and the status bar's branch switcher say why instead; the terminal
panel shows the server's refusal once and does not reconnect."""

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from server.api.services import services_of
from server.core.config import REPO_ROOT
from tests.conftest import LiveServer
from tests.fakes.git_remotes import git
from tests.webui.test_team import sign_in, team_server  # noqa: F401 - a fixture
from tests.webui.test_team_membership import FETCH

pytestmark = pytest.mark.browser

REASON = "Viewers cannot {}: an owner can make you an editor."
TERMINAL_CLIENT = REPO_ROOT / "webui" / "src" / "features" / "terminal" / "connection.ts"


def _api(page: Page, method: str, url: str, body: dict | None = None) -> dict:
    status, text = page.evaluate(FETCH, [method, url, body])
    assert 200 <= status < 300, (status, text)
    return json.loads(text) if text else {}


def _shared_project(alice: Page) -> dict:
    """A Git project with an untracked file and a finished job, bob a viewer of it."""
    project = _api(alice, "POST", "/api/projects", {"name": "viewed", "template": "empty", "git": False})
    pid, folder = project["id"], Path(project["path"])
    _api(alice, "PUT", f"/api/projects/{pid}/members/bob", {"role": "viewer"})
    git("init", "-q", "-b", "main", cwd=folder)
    git("add", "-A", cwd=folder)
    git("-c", "user.name=a", "-c", "user.email=a@example.invalid", "commit", "-q", "-m", "start", cwd=folder)
    (folder / "notes.txt").write_text("not yet committed\n")
    _api(alice, "POST", f"/api/projects/{pid}/jobs", {"command": "python -c \"print('trained')\""})
    return project


def _source_control(bob: Page) -> None:
    bob.get_by_test_id("action-git").click()
    panel = bob.get_by_test_id("scm-panel")
    expect(panel.get_by_test_id("scm-viewer")).to_have_text(REASON.format("stage, commit, pull or push"))
    expect(panel.get_by_test_id("scm-commit")).to_have_count(0)
    row = panel.locator("[data-testid=scm-file][data-path='notes.txt']")
    expect(row).to_be_visible()
    expect(row.get_by_test_id("scm-open")).to_have_count(1)
    expect(panel.get_by_test_id("scm-stage")).to_have_count(0)
    expect(panel.get_by_test_id("scm-discard")).to_have_count(0)
    expect(panel.get_by_test_id("scm-group-stage")).to_have_count(0)
    expect(panel.get_by_test_id("scm-stash-push")).to_have_count(0)
    for action, what in (("scm-pull", "pull"), ("scm-push", "push")):
        expect(panel.get_by_test_id(action)).to_be_disabled()
        expect(panel.get_by_test_id(action)).to_have_attribute("title", REASON.format(what))
    expect(panel.get_by_test_id("scm-run-checks")).to_be_disabled()
    panel.get_by_test_id("scm-more").click()
    expect(bob.get_by_test_id("scm-refresh")).to_be_visible()
    for write in ("scm-fetch", "scm-remotes", "scm-stash"):
        expect(bob.get_by_test_id(write)).to_have_count(0)
    bob.keyboard.press("Escape")
    branch = bob.get_by_test_id("status-branch")
    expect(branch).to_be_disabled()
    expect(branch).to_have_attribute("title", REASON.format("switch or create branches"))


def _training(bob: Page) -> None:
    bob.get_by_test_id("action-training").click()
    panel = bob.get_by_test_id("training-panel")
    expect(panel.get_by_test_id("job-new")).to_be_disabled()
    expect(panel.get_by_test_id("job-new")).to_have_attribute("title", REASON.format("start jobs"))
    expect(panel.get_by_test_id("pai-settings-open")).to_be_disabled()
    expect(panel.get_by_test_id("interpreter-open")).to_be_disabled()
    panel.get_by_test_id("job-row").click()
    expect(panel.get_by_test_id("job-pull")).to_be_disabled()
    expect(panel.get_by_test_id("job-pull")).to_have_attribute("title", REASON.format("pull artifacts"))


def test_a_viewer_sees_why_nothing_can_be_changed(
    team_server: LiveServer, people: dict[str, BrowserContext], tmp_path: Path  # noqa: F811
) -> None:
    url = team_server.url
    alice = people["alice"].new_page()
    sign_in(alice, url, "/", "alice")
    project = _shared_project(alice)

    bob = people["bob"].new_page()
    sign_in(bob, url, f"/p/{project['id']}", "bob")
    expect(bob.get_by_test_id("status-readonly")).to_be_visible()
    _source_control(bob)
    _training(bob)
    bob.keyboard.press("ControlOrMeta+Shift+F")
    search = bob.get_by_test_id("search-panel")
    expect(search.get_by_test_id("search-input")).to_be_visible()
    expect(search.get_by_test_id("replace-input")).to_have_count(0)
    bob.screenshot(path=tmp_path / "viewer-actions.png")

    # The same panels still offer every action to an admin.
    alice.goto(f"{url}/p/{project['id']}")
    alice.get_by_test_id("action-git").click()
    expect(alice.get_by_test_id("scm-commit")).to_be_visible()
    expect(alice.get_by_test_id("scm-pull")).to_be_enabled()
    expect(alice.get_by_test_id("scm-viewer")).to_have_count(0)


def _reconnect_delays_ms() -> list[int]:
    """The terminal client's delays before each reconnect, as its code has them."""
    found = re.search(r"const RETRY_MS = \[([\d_, ]+)\]", TERMINAL_CLIENT.read_text())
    assert found, "the terminal client has no RETRY_MS"
    return [int(ms.replace("_", "")) for ms in found.group(1).split(",")]


def test_a_viewer_is_told_once_why_there_is_no_terminal(
    team_server: LiveServer, people: dict[str, BrowserContext]  # noqa: F811
) -> None:
    # Members may have terminals here, so what refuses bob is his role, not the server's setting.
    services_of(team_server.server.config.app).settings.team_terminal = True
    url = team_server.url
    alice = people["alice"].new_page()
    sign_in(alice, url, "/", "alice")
    project = _api(alice, "POST", "/api/projects", {"name": "watched", "template": "empty"})
    _api(alice, "PUT", f"/api/projects/{project['id']}/members/bob", {"role": "viewer"})

    bob = people["bob"].new_page()
    attempts: list[str] = []
    bob.on("websocket", lambda ws: attempts.append(ws.url) if "/terminal?" in ws.url else None)
    sign_in(bob, url, f"/p/{project['id']}", "bob")
    expect(bob.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    bob.keyboard.press("Control+Backquote")
    status = bob.get_by_test_id("terminal-status")
    expect(status).to_have_text("Not allowed: this needs the editor role on the project; you are a viewer")
    # A reconnect would be set up by the same close that showed the reason. A timer the page sets
    # now, as long as the first few reconnect delays together, fires after any of those would have.
    delays = _reconnect_delays_ms()
    bob.evaluate("ms => new Promise((done) => setTimeout(done, ms))", sum(delays[:3]))
    assert len(attempts) == 1, attempts
    expect(status).to_have_count(1)
    expect(status).to_have_text("Not allowed: this needs the editor role on the project; you are a viewer")
