"""The history view shows the current branch's history or every branch's, as the person picks."""

from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.fakes.git_remotes import git
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser


def test_history_of_the_current_branch_or_all_branches(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "scope")
    folder = Path(project["path"])
    git("init", "-q", "-b", "main", cwd=folder)
    git("add", "-A", cwd=folder)
    git("commit", "-q", "-m", "Start", cwd=folder)
    git("checkout", "-q", "-b", "side", cwd=folder)
    (folder / "side.py").write_text("x = 1\n")
    git("add", "side.py", cwd=folder)
    git("commit", "-q", "-m", "Side work", cwd=folder)
    git("checkout", "-q", "main", cwd=folder)
    side = git("rev-parse", "side", cwd=folder).strip()

    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    page.get_by_test_id("scm-panel").get_by_test_id("scm-history").click()
    rows = page.get_by_test_id("git-commit")
    expect(rows).to_have_count(1)
    page.get_by_test_id("history-all").click()
    expect(rows).to_have_count(2)
    expect(page.locator(f"[data-testid=git-commit][data-sha='{side}']")).to_be_visible()
    every = git("log", "--topo-order", "--format=%H", "--branches", "--remotes", "--tags", "HEAD", cwd=folder)
    assert [r.get_attribute("data-sha") for r in rows.all()] == every.split()
    page.get_by_test_id("history-current").click()
    expect(rows).to_have_count(1)
