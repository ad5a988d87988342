"""A project made on the home page with "Track with Git" left on has its initial commit in the
history; a project without a repository starts tracking from the Source Control view."""

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, expect

from tests.fakes.git_remotes import git
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser


def test_a_template_project_shows_its_initial_commit(context: BrowserContext, live_server) -> None:
    home = context.new_page()
    home.goto(live_server.url + "/")
    home.get_by_test_id("new-project-name").fill("tracked")
    home.get_by_test_id("template-hello-mnn").click()
    expect(home.get_by_test_id("new-project-git")).to_be_checked()
    with context.expect_page() as opened:
        home.get_by_test_id("new-project-submit").click()
    page = opened.value
    expect(page.get_by_test_id("project-title")).to_have_text("tracked")
    [project] = [p for p in httpx.get(f"{live_server.url}/api/projects", headers=live_server.auth).json()
                 if p["name"] == "tracked"]
    head = git("rev-parse", "HEAD", cwd=Path(project["path"])).strip()

    page.get_by_test_id("action-git").click()
    panel = page.get_by_test_id("scm-panel")
    expect(panel.get_by_test_id("scm-clean")).to_be_visible()
    panel.get_by_test_id("scm-history").click()
    rows = page.get_by_test_id("git-commit")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-sha", head)
    expect(rows.first).to_contain_text("Initial commit")


def test_unticked_track_with_git_makes_no_repository(context: BrowserContext, live_server) -> None:
    home = context.new_page()
    home.goto(live_server.url + "/")
    home.get_by_test_id("new-project-name").fill("plain")
    home.get_by_test_id("template-empty").click()
    home.get_by_test_id("new-project-git").uncheck()
    with context.expect_page() as opened:
        home.get_by_test_id("new-project-submit").click()
    page = opened.value
    page.get_by_test_id("action-git").click()
    expect(page.get_by_test_id("scm-panel").get_by_test_id("scm-start-tracking")).to_be_visible()
    [project] = [p for p in httpx.get(f"{live_server.url}/api/projects", headers=live_server.auth).json()
                 if p["name"] == "plain"]
    assert not (Path(project["path"]) / ".git").exists()


def test_start_tracking_with_git_commits_the_project(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "later", git=False)
    folder = Path(project["path"])
    (folder / "outputs").mkdir()
    (folder / "outputs" / "run.log").write_text("a run's output\n")
    identity = {"name": "Ada Lovelace", "email": "ada@example.com"}
    saved = httpx.put(f"{live_server.url}/api/git/identity", headers=live_server.auth, json=identity)
    assert saved.status_code == 200, saved.text
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    panel = page.get_by_test_id("scm-panel")
    panel.get_by_test_id("scm-start-tracking").click()
    expect(panel.get_by_test_id("scm-clean")).to_be_visible()
    expect(page.get_by_test_id("status-branch")).to_have_attribute("data-branch", "main")
    assert git("log", "--format=%an|%s", cwd=folder).strip() == "Ada Lovelace|Initial commit"
    tracked = git("ls-tree", "-r", "--name-only", "HEAD", cwd=folder).split()
    assert sorted(tracked) == [".gitignore", "README.md", "main.py"]
    panel.get_by_test_id("scm-history").click()
    expect(page.get_by_test_id("git-commit")).to_have_count(1)
